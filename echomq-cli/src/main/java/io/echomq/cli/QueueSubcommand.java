package io.echomq.cli;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.ShardedQueue;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** What every queue subcommand takes: help, the Redis URL and the queue's name. */
abstract class QueueSubcommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    HelpOption help;
    @Mixin
    RedisOptions redis;
    @Parameters(index = "0", paramLabel = "<queue>", parameterConsumer = DashValue.class,
            description = "The queue's name: 1..256 bytes of UTF-8 without '{', '}', whitespace or control "
                + "characters, not ending in #<digits> (that names a partition of a sharded queue). It is "
                + "stricter than a lock's name because it is part of every key of the queue, which an "
                + "operator reads and types, and a trailing #<digits> is kept for partitions.")
    String queue;
    /** The partition count of a sharded queue, or null for a plain queue. */
    Integer partitions;

    @Option(names = "--partitions", paramLabel = "<k>",
            description = "Shard a new queue into k partitions (1.." + ShardedQueue.MAX_PARTITIONS + "), "
                + "named <queue>#0..#k-1; job ids are then <partition>-<id>. Not needed afterwards: every "
                + "command reads the count stored with the queue, and a k that differs from it is refused "
                + "(exit code 2).")
    void partitions(int k) {
        partitions = (int) QueueArgs.inRange(spec, "--partitions", k, 1, ShardedQueue.MAX_PARTITIONS, "");
    }

    /** Connects to {@code --redis}; throws IllegalArgumentException or RedisCommandException. */
    QueueClient connect() {
        return redis.connectQueue();
    }

    /**
     * Checks a job id: with {@code --partitions} it must be {@code <partition>-<id>}.
     *
     * @throws ParameterException otherwise
     */
    void checkJobId(String id) {
        QueueArgs.checkId(spec, id, "<id>");
        if (partitions != null && !id.matches("[0-9]{1,4}-.+")) {
            throw new ParameterException(spec.commandLine(), "Invalid value for <id>: '" + id
                    + "' is not of the form <partition>-<id>, as the ids of a sharded queue are");
        }
    }

    /**
     * @return the queue as stored, see {@link QueueArgs#openAsStored}
     * @throws IllegalArgumentException (exit code 2) if no such queue is stored and {@link #creates()} is false
     */
    QueueOperations open(QueueClient client) {
        if (!creates()) {
            QueueLookup.requireStored(client, queue, createHint());
        }
        return QueueArgs.openAsStored(spec, client, queue, partitions);
    }

    /** @return whether this run may act on a queue that is not stored yet (and so create it); false by default */
    boolean creates() {
        return false;
    }

    /** @return the option that lets this command create the queue, named when refusing; null when it has none */
    String createHint() {
        return null;
    }

    /**
     * Records what this run changed on the queue in the server's audit trail ({@link AuditNote}): a failure
     * to write it is told on stderr, never thrown.
     */
    void audit(QueueClient client, io.echomq.audit.AuditAction action, String detail) {
        AuditNote.record(client.auditTrail(), io.echomq.audit.AuditTarget.queue(queue), action, detail, err(),
                spec.qualifiedName());
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }
}
