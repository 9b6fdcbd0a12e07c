package io.echomq.cli;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/** {@code emq queue enqueue <queue> <payload> [options]}. */
@Command(name = "enqueue",
        description = {"Enqueues one job and prints its id.",
            "<payload> - reads the payload from stdin (all of it, as bytes). A payload that starts with "
                + "'--' goes after a lone '--'. A payload is 1.." + QueueClient.DEFAULT_MAX_PAYLOAD_BYTES
                + " bytes (1 MiB; --max-payload raises it); an empty one, as \"$(cat missing.json)\" gives, is refused (exit code 2) "
                + "unless --allow-empty is given.",
            "With --lines, enqueues one job per line of stdin (the line without its line break), sent in "
                + "bulks of " + LineEnqueue.BATCH + ", and prints one id per line; a progress line goes to "
                + "stderr every " + LineEnqueue.PROGRESS_EVERY + " jobs.",
            "With --key, a second enqueue inside the key's window adds nothing: it prints the first job's "
                + "id and a note ('existing job') on stderr, with exit code 0."})
final class QueueEnqueueCommand extends QueueSubcommand {
    /** Longest delay and idempotency window accepted, in ms (the core's limit). */
    static final long MAX_DELAY_MS = EnqueueOptions.MAX_DELAY.toMillis();
    /** Default idempotency window of {@code --key-window}: one day. */
    static final long DEFAULT_KEY_WINDOW_MS = 86_400_000L;

    @Parameters(index = "1", arity = "0..1", paramLabel = "<payload>", parameterConsumer = DashValue.class,
            description = "The job's payload as text, or - for stdin; none with --lines.")
    String payload;
    @Option(names = "--lines",
            description = "Read stdin and enqueue one job per line; prints one id per line.")
    boolean lines;
    @Option(names = "--max-payload", paramLabel = "<bytes>",
            defaultValue = "" + QueueClient.DEFAULT_MAX_PAYLOAD_BYTES,
            description = "The longest payload accepted, 1.." + QueueClient.MAX_PAYLOAD_LIMIT + " bytes (64 MiB). "
                + "Default: ${DEFAULT-VALUE} (1 MiB).")
    int maxPayloadBytes;
    @Option(names = "--allow-empty",
            description = "Accept an empty payload (refused by default: it is usually a mistake).")
    boolean allowEmpty;
    @Option(names = "--delay", paramLabel = "<ms>", defaultValue = "0",
            description = "Due this many ms after enqueue, on the server's clock. Default: ${DEFAULT-VALUE}.")
    long delayMs;
    @Option(names = "--priority", paramLabel = "<n>", defaultValue = "0",
            description = "-1000..1000; higher is claimed first, FIFO within one priority. "
                + "Default: ${DEFAULT-VALUE}.")
    int priority;
    @Option(names = "--max-attempts", paramLabel = "<n>",
            description = "1..1000 attempts before the job goes to dead. Default: "
                + EnqueueOptions.DEFAULT_MAX_ATTEMPTS + ".")
    Integer maxAttempts;
    @Option(names = "--timeout", paramLabel = "<ms>",
            description = "How long a worker's handler (an 'emq worker --exec' command) may run on this job, 1.."
                + QueueTimeoutCommand.MAX_MS + " ms from its start; past it the command is killed and the job "
                + "fails with TIMEOUT. It wins over the queue's default (emq queue timeout) and the worker's own "
                + "--timeout. None by default.")
    Long timeoutMs;
    @Option(names = "--key", paramLabel = "<idempotency-key>",
            description = "Enqueue once per key: while the key's window runs, the same key names the "
                + "same job.")
    String key;
    @Option(names = "--partition-key", paramLabel = "<key>",
            description = "For a sharded queue: the partition is crc32(key) mod k, so that jobs sharing a key "
                + "are claimed in enqueue order. Without it, --key chooses the partition, else round-robin.")
    String partitionKey;
    @Option(names = "--group", paramLabel = "<group>",
            description = "Put the job in a fair group (emq queue groups): claims take the queue's groups in turn, "
                + "and at most the queue's per-group concurrency (default 1) of one group's jobs run at once. "
                + "1..128 of A-Z a-z 0-9 . _ - @ + = / #.")
    String group;
    @Option(names = "--key-window", paramLabel = "<ms>",
            description = "How long --key is remembered. Default: " + DEFAULT_KEY_WINDOW_MS + " (one day).")
    Long keyWindowMs;

    /** Connects with the payload limit of {@code --max-payload}. */
    @Override
    QueueClient connect() {
        return redis.connectQueue(maxPayloadBytes);
    }

    /** Where {@code -} reads the payload from; tests replace it. */
    InputStream stdin = System.in;

    /** The first enqueue creates the queue. */
    @Override
    boolean creates() {
        return true;
    }

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        if (partitionKey != null) {
            QueueArgs.checkId(spec, partitionKey, "--partition-key");
        }
        EnqueueOptions options = options();
        QueueArgs.inRange(spec, "--max-payload", maxPayloadBytes, 1, QueueClient.MAX_PAYLOAD_LIMIT, " bytes");
        if (lines) {
            return enqueueLines(options);
        }
        if (payload == null) {
            throw new ParameterException(spec.commandLine(), "Missing required parameter: '<payload>' "
                    + "(or --lines to read one job per line of stdin)");
        }
        byte[] body = "-".equals(payload) ? readStdin() : payload.getBytes(StandardCharsets.UTF_8);
        if (body.length > maxPayloadBytes) {
            throw new ParameterException(spec.commandLine(), "<payload> is over the limit of "
                    + maxPayloadBytes + " bytes (--max-payload raises it, up to " + QueueClient.MAX_PAYLOAD_LIMIT
                    + ")");
        }
        if (body.length == 0 && !allowEmpty) {
            throw new ParameterException(spec.commandLine(), "<payload> is empty"
                    + ("-".equals(payload) ? " (nothing on stdin)" : "") + "; give --allow-empty to enqueue "
                    + "an empty payload");
        }
        EnqueueResult result;
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            if (partitionKey == null) {
                result = q.enqueue(body, options);
            } else {
                result = sharded(q).enqueue(partitionKey, body, options);
            }
        }
        out().println(result.id());
        if (!result.created()) {
            err().println(spec.qualifiedName() + ": existing job " + result.id() + " for key '" + key
                    + "' (its window still runs); nothing was added");
        }
        return ExitCodes.OK;
    }

    private int enqueueLines(EnqueueOptions options) {
        if (payload != null && !"-".equals(payload)) {
            throw new ParameterException(spec.commandLine(), "--lines reads the payloads from stdin; "
                    + "give no <payload> (or -)");
        }
        if (key != null) {
            throw new ParameterException(spec.commandLine(), "--key names one job; it cannot be combined "
                    + "with --lines, where each line is a job");
        }
        try (QueueClient client = connect()) {
            QueueOperations q = open(client);
            if (partitionKey != null) {
                sharded(q);
            }
            new LineEnqueue(spec, q, partitionKey, options, allowEmpty, maxPayloadBytes)
                    .run(stdin);
        }
        return ExitCodes.OK;
    }

    /**
     * @return q, once it is known to be sharded: a partition key on a plain queue names its one
     *     partition, which is surely not what the user meant
     */
    private QueueOperations sharded(QueueOperations q) {
        if (q.isSharded()) {
            return q;
        }
        throw new ParameterException(spec.commandLine(), "--partition-key needs a sharded queue, and "
                + queue + " is not sharded; give --partitions <k> to shard a new queue");
    }

    private EnqueueOptions options() {
        EnqueueOptions o = EnqueueOptions.defaults()
                .withPriority((int) QueueArgs.inRange(spec, "--priority", priority, EnqueueOptions.MIN_PRIORITY,
                        EnqueueOptions.MAX_PRIORITY, ""))
                .withDelay(Duration.ofMillis(QueueArgs.inRange(spec, "--delay", delayMs, 0, MAX_DELAY_MS, " milliseconds")));
        if (maxAttempts != null) {
            o = o.withMaxAttempts((int) QueueArgs.inRange(spec, "--max-attempts", maxAttempts, 1,
                    EnqueueOptions.MAX_ATTEMPTS, ""));
        }
        if (timeoutMs != null) {
            o = o.withTimeout(Duration.ofMillis(QueueArgs.inRange(spec, "--timeout", timeoutMs, 1,
                    QueueTimeoutCommand.MAX_MS, " milliseconds")));
        }
        if (group != null) {
            try {
                o = o.withGroup(group);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "Invalid value for --group: " + e.getMessage());
            }
        }
        if (key == null) {
            if (keyWindowMs != null) {
                throw new ParameterException(spec.commandLine(), "--key-window needs --key");
            }
            return o;
        }
        QueueArgs.checkId(spec, key, "--key");
        long window = keyWindowMs == null ? DEFAULT_KEY_WINDOW_MS
                : QueueArgs.inRange(spec, "--key-window", keyWindowMs, 1, MAX_DELAY_MS, " milliseconds");
        return o.withIdempotencyKey(key, Duration.ofMillis(window));
    }

    /** Reads all of stdin, but no more than one byte past the payload limit. */
    private byte[] readStdin() {
        try {
            return stdin.readNBytes(maxPayloadBytes + 1);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the payload from stdin", e);
        }
    }
}
