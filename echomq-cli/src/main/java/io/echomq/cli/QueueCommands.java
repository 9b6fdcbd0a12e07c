package io.echomq.cli;

import io.echomq.Names;
import io.echomq.queue.DeadJob;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.JobInfo;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import io.echomq.queue.QueueStats;
import io.echomq.queue.ReapResult;
import io.echomq.queue.RemoveOutcome;
import io.echomq.queue.ShardedQueue;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.IntSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code emq queue}: enqueue a job and operate a queue from a shell: stats, reap, remove, the dead
 * letters and one job's hash. Each subcommand checks its input before it connects (bad input
 * exits 2 without touching Redis), prints its answer on stdout and notes on stderr.
 *
 * <pre>
 * emq queue enqueue emails '{"to":"ada@example.com"}' --priority 10   # 17
 * emq queue stats emails      # pending=3 active=1 delayed=0 dead=2 completed=40 failed=5 overdue=0
 * emq queue dead emails       # 12	2024-05-01T12:00:00.123Z	attempts=3	failed on attempt 3 of 3	exit status 1
 * emq queue dead emails --retry                                       # redriven=2
 * </pre>
 */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = "Enqueue jobs and operate a queue: stats, reap, remove, dead letters, inspect.",
        subcommands = {QueueCommands.Enqueue.class, QueueCommands.Stats.class, QueueCommands.Reap.class,
            QueueCommands.Remove.class, QueueCommands.Dead.class, QueueCommands.Inspect.class})
final class QueueCommands {
    /** Jobs per redrive or purge call of {@code emq queue dead --retry|--purge}. */
    static final int DEAD_BATCH = 1000;
    /** {@code emq queue dead --retry|--purge} reports progress on stderr after every this many jobs. */
    static final long PROGRESS_EVERY = 10_000;
    /** Longest delay and idempotency window accepted, in ms (the core's limit). */
    static final long MAX_DELAY_MS = EnqueueOptions.MAX_DELAY.toMillis();
    /** Default idempotency window of {@code --key-window}: one day. */
    static final long DEFAULT_KEY_WINDOW_MS = 86_400_000L;

    /** Payload and progress values are printed as text only when they are UTF-8 without these. */
    private static final String PRINTABLE_CONTROLS = "\t";
    /** The job hash fields in the order inspect prints them; any others follow, sorted. */
    private static final List<String> FIELD_ORDER = List.of("state", "attempts", "spent", "max_attempts", "priority",
            "score", "backoff_ms", "backoff_max_ms", "created_at", "claimed_at", "finished_at", "idem", "dead_reason",
            "last_error", "progress", "payload");

    private QueueCommands() {
    }

    /** What every queue subcommand takes: help, the Redis URL and the queue's name. */
    abstract static class Subcommand implements Callable<Integer> {
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
            partitions = (int) inRange(spec, "--partitions", k, 1, ShardedQueue.MAX_PARTITIONS, "");
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
            checkId(spec, id, "<id>");
            if (partitions != null && !id.matches("[0-9]{1,4}-.+")) {
                throw new ParameterException(spec.commandLine(), "Invalid value for <id>: '" + id
                        + "' is not of the form <partition>-<id>, as the ids of a sharded queue are");
            }
        }

        /** @return the queue as stored, see {@link QueueCommands#openAsStored} */
        QueueOperations open(QueueClient client) {
            return openAsStored(spec, client, queue, partitions);
        }

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        PrintWriter err() {
            return spec.commandLine().getErr();
        }
    }

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
    static final class Enqueue extends Subcommand {
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
        @Option(names = "--key", paramLabel = "<idempotency-key>",
                description = "Enqueue once per key: while the key's window runs, the same key names the "
                    + "same job.")
        String key;
        @Option(names = "--partition-key", paramLabel = "<key>",
                description = "For a sharded queue: the partition is crc32(key) mod k, so that jobs sharing a key "
                    + "are claimed in enqueue order. Without it, --key chooses the partition, else round-robin.")
        String partitionKey;
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

        @Override
        public Integer call() {
            checkQueue(spec, queue);
            if (partitionKey != null) {
                checkId(spec, partitionKey, "--partition-key");
            }
            EnqueueOptions options = options();
            inRange(spec, "--max-payload", maxPayloadBytes, 1, QueueClient.MAX_PAYLOAD_LIMIT, " bytes");
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

        /** @return q as a sharded queue, for --partition-key */
        private ShardedQueue sharded(QueueOperations q) {
            if (q instanceof ShardedQueue sharded) {
                return sharded;
            }
            throw new ParameterException(spec.commandLine(), "--partition-key needs a sharded queue, and "
                    + queue + " is not sharded; give --partitions <k> to shard a new queue");
        }

        private EnqueueOptions options() {
            EnqueueOptions o = EnqueueOptions.defaults()
                    .withPriority((int) inRange(spec, "--priority", priority, EnqueueOptions.MIN_PRIORITY,
                            EnqueueOptions.MAX_PRIORITY, ""))
                    .withDelay(Duration.ofMillis(inRange(spec, "--delay", delayMs, 0, MAX_DELAY_MS, " milliseconds")));
            if (maxAttempts != null) {
                o = o.withMaxAttempts((int) inRange(spec, "--max-attempts", maxAttempts, 1,
                        EnqueueOptions.MAX_ATTEMPTS, ""));
            }
            if (key == null) {
                if (keyWindowMs != null) {
                    throw new ParameterException(spec.commandLine(), "--key-window needs --key");
                }
                return o;
            }
            checkId(spec, key, "--key");
            long window = keyWindowMs == null ? DEFAULT_KEY_WINDOW_MS
                    : inRange(spec, "--key-window", keyWindowMs, 1, MAX_DELAY_MS, " milliseconds");
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

    /** {@code emq queue stats <queue>}. */
    @Command(name = "stats",
            description = {"Prints the queue's counts, read in one atomic step, as one line:",
                "  pending=N active=N delayed=N dead=N completed=N failed=N overdue=N",
                "completed and failed count since the queue was created (each retry is a failure); overdue "
                    + "counts active jobs whose lease ran out, which the next reap returns."})
    static final class Stats extends Subcommand {
        @Override
        public Integer call() {
            checkQueue(spec, queue);
            QueueStats s;
            List<QueueStats> each = List.of();
            try (QueueClient client = connect()) {
                QueueOperations q = open(client);
                s = q.stats();
                if (q instanceof ShardedQueue sharded) {
                    each = sharded.partitionStats();
                }
            }
            out().println(describe(s));
            for (int i = 0; i < each.size(); i++) {
                out().println("partition=" + i + " " + describe(each.get(i)));
            }
            return ExitCodes.OK;
        }

        /** @return {@code pending=N active=N delayed=N dead=N completed=N failed=N overdue=N} */
        static String describe(QueueStats s) {
            return "pending=" + s.pending() + " active=" + s.active() + " delayed=" + s.delayed() + " dead=" + s.dead()
                    + " completed=" + s.completed() + " failed=" + s.failed() + " overdue=" + s.overdue();
        }
    }

    /** {@code emq queue reap <queue> [--limit n]}. */
    @Command(name = "reap",
            description = {"Returns expired leases to pending, or to dead when the job has spent its attempts, "
                + "on the server's clock. Workers do this by themselves; this is for queues without workers.",
                "Prints returned=N dead=M."})
    static final class Reap extends Subcommand {
        @Option(names = "--limit", paramLabel = "<n>", defaultValue = "1000",
                description = "Most expired leases handled, 1.." + Queue.MAX_BATCH + ". Default: ${DEFAULT-VALUE}.")
        int limit;

        @Override
        public Integer call() {
            checkQueue(spec, queue);
            inRange(spec, "--limit", limit, 1, Queue.MAX_BATCH, "");
            ReapResult r;
            try (QueueClient client = connect()) {
                r = open(client).reap(limit);
            }
            out().println("returned=" + r.returned() + " dead=" + r.dead());
            return ExitCodes.OK;
        }
    }

    /** {@code emq queue remove <queue> <id> [--force]}. */
    @Command(name = "remove",
            description = {"Removes a job wherever it is (pending, active, delayed, dead or done), with its lock "
                + "and idempotency key.",
                "Prints REMOVED (exit code 0), LOCKED (a worker holds the job; nothing changed; exit code 1) or "
                    + "MISSING (no such job; exit code 1).",
                "A pending job of priority 0 is found by scanning the queue's wait list on the server (LREM, "
                    + "O(n)): fine now and then, not in a loop over a deep queue."})
    static final class Remove extends Subcommand {
        @Parameters(index = "1", paramLabel = "<id>", parameterConsumer = DashValue.class, description = "The job id.")
        String id;
        @Option(names = "--force", description = "Remove the job even while a worker holds it; that worker's "
                + "complete or fail is then refused.")
        boolean force;

        @Override
        public Integer call() {
            checkQueue(spec, queue);
            checkJobId(id);
            RemoveOutcome outcome;
            try (QueueClient client = connect()) {
                outcome = open(client).remove(id, force);
            }
            out().println(outcome);
            return outcome == RemoveOutcome.REMOVED ? ExitCodes.OK : ExitCodes.NO;
        }
    }

    /** {@code emq queue dead <queue> [--limit n] [--retry | --purge]}. */
    @Command(name = "dead",
            description = {"Lists the dead jobs, oldest death first, one per line, tab-separated:",
                "  <id>  <died-at, ISO-8601 UTC>  attempts=<n>  <reason>  <first line of the last error>",
                "Notes on stderr how many are not listed when there are more than --limit.",
                "--retry moves ALL dead jobs back to pending with a fresh budget of attempts and prints "
                    + "redriven=N; --purge deletes them all and prints purged=N. Both work in batches of "
                    + DEAD_BATCH + " until a batch moves none, and note progress on stderr every "
                    + PROGRESS_EVERY + " jobs. A dead entry without a job hash or payload cannot be redriven; "
                    + "it stays dead."})
    static final class Dead extends Subcommand {
        @Option(names = "--limit", paramLabel = "<n>", defaultValue = "100",
                description = "Most jobs listed, 1.." + Queue.MAX_BATCH + " (not used by --retry and --purge). "
                    + "Default: ${DEFAULT-VALUE}.")
        int limit;
        @Option(names = "--retry", description = "Redrive all dead jobs to pending.")
        boolean retry;
        @Option(names = "--purge", description = "Delete all dead jobs for good.")
        boolean purge;

        @Override
        public Integer call() {
            checkQueue(spec, queue);
            if (retry && purge) {
                throw new ParameterException(spec.commandLine(), "--retry and --purge are mutually exclusive");
            }
            inRange(spec, "--limit", limit, 1, Queue.MAX_BATCH, "");
            try (QueueClient client = connect()) {
                QueueOperations q = open(client);
                if (retry) {
                    out().println("redriven=" + drain("redriven", () -> (int) q.redrive(DEAD_BATCH)));
                } else if (purge) {
                    out().println("purged=" + drain("purged", () -> (int) q.purgeDead(DEAD_BATCH)));
                } else {
                    list(q);
                }
            }
            return ExitCodes.OK;
        }

        private void list(QueueOperations q) {
            List<DeadJob> jobs = q.dead(limit);
            for (DeadJob j : jobs) {
                out().println(line(j));
            }
            if (jobs.size() == limit) {
                long total = q.stats().dead();
                if (total > jobs.size()) {
                    err().println(spec.qualifiedName() + ": listed the oldest " + jobs.size() + " of " + total
                            + " dead jobs (see --limit)");
                }
            }
        }

        /** Calls {@code batch} until it moves nothing; returns the total, noting progress on stderr. */
        private long drain(String verb, IntSupplier batch) {
            long total = 0;
            long nextNote = PROGRESS_EVERY;
            for (int moved = batch.getAsInt(); moved > 0; moved = batch.getAsInt()) {
                total += moved;
                if (total >= nextNote) {
                    err().println(spec.qualifiedName() + ": " + verb + " " + total + " so far");
                    err().flush();
                    nextNote = (total / PROGRESS_EVERY + 1) * PROGRESS_EVERY;
                }
            }
            return total;
        }

        /** @return the listing line of one dead job */
        static String line(DeadJob j) {
            String firstError = j.lastError().lines().findFirst().orElse("");
            return j.id() + '\t' + Instant.ofEpochMilli(j.diedAtMillis()) + "\tattempts=" + j.attempts() + '\t'
                    + oneField(j.reason()) + '\t' + oneField(firstError);
        }

        /** @return {@code text} with tabs and line breaks turned into spaces, so it stays one column */
        private static String oneField(String text) {
            return text.replaceAll("[\\t\\r\\n]+", " ").strip();
        }
    }

    /** {@code emq queue inspect <queue> <id>}. */
    @Command(name = "inspect",
            description = {"Prints the fields of one job's hash as name=value, one per line, exit code 0; "
                + "exit code 1 (and nothing on stdout) when there is no such job.",
                "payload and progress print as they are when they are valid UTF-8 without line breaks or other "
                    + "control characters (tabs are fine), else as base64:<base64 of the bytes>. In the other "
                    + "fields (last_error holds a whole stderr or stack trace) a backslash prints as \\\\, "
                    + "a line break as \\n, a carriage return as \\r and other control characters as \\u00XX."})
    static final class Inspect extends Subcommand {
        @Parameters(index = "1", paramLabel = "<id>", parameterConsumer = DashValue.class, description = "The job id.")
        String id;

        @Override
        public Integer call() {
            checkQueue(spec, queue);
            checkJobId(id);
            Optional<JobInfo> info;
            try (QueueClient client = connect()) {
                info = open(client).inspect(id);
            }
            if (info.isEmpty()) {
                err().println(spec.qualifiedName() + ": no job " + id + " in queue " + queue);
                return ExitCodes.NO;
            }
            // A pending job's hash may omit state and attempts (protocol: "when absent"); show
            // their values all the same, so that every job answers what state it is in.
            Map<String, byte[]> fields = new java.util.LinkedHashMap<>(info.get().fields());
            fields.putIfAbsent("state", info.get().state().getBytes(StandardCharsets.UTF_8));
            fields.putIfAbsent("attempts", Long.toString(info.get().attempts()).getBytes(StandardCharsets.UTF_8));
            for (String line : lines(fields)) {
                out().println(line);
            }
            return ExitCodes.OK;
        }

        /** @return {@code name=value} lines, known fields first in {@link #FIELD_ORDER}, the rest sorted */
        static List<String> lines(Map<String, byte[]> fields) {
            Map<String, byte[]> rest = new TreeMap<>(fields);
            List<String> out = new ArrayList<>(fields.size());
            for (String name : FIELD_ORDER) {
                byte[] v = rest.remove(name);
                if (v != null) {
                    out.add(name + "=" + value(name, v));
                }
            }
            rest.forEach((name, v) -> out.add(oneLine(name) + "=" + value(name, v)));
            return out;
        }

        private static String value(String name, byte[] v) {
            if (name.equals("payload") || name.equals("progress")) {
                String text = strictUtf8(v);
                return text != null && isPlain(text) ? text : "base64:" + Base64.getEncoder().encodeToString(v);
            }
            return oneLine(new String(v, StandardCharsets.UTF_8));
        }

        /** @return the bytes as text if they are valid UTF-8, else null */
        private static String strictUtf8(byte[] v) {
            try {
                return StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(v)).toString();
            } catch (CharacterCodingException e) {
                return null;
            }
        }

        private static boolean isPlain(String text) {
            return text.codePoints().noneMatch(c -> isControl(c) && PRINTABLE_CONTROLS.indexOf(c) < 0);
        }

        private static boolean isControl(int c) {
            return Character.isISOControl(c) || c == '\u2028' || c == '\u2029' || c == '\u0085';
        }

        /** @return {@code text} escaped onto one line: backslash, line feed, carriage return and other controls */
        static String oneLine(String text) {
            StringBuilder b = new StringBuilder(text.length());
            text.codePoints().forEach(c -> {
                switch (c) {
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append('\t');
                    default -> {
                        if (isControl(c)) {
                            b.append(String.format("\\u%04X", c));
                        } else {
                            b.appendCodePoint(c);
                        }
                    }
                }
            });
            return b.toString();
        }
    }

    // ------------------------------------------------------------------ input checks, before Redis

    /**
     * Checks a queue name with the core's own rule, so that bad input exits 2 before connecting.
     *
     * @throws ParameterException if the name is invalid
     */
    static void checkQueue(CommandSpec spec, String name) {
        try {
            Names.queue(name);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for <queue>: " + e.getMessage());
        }
    }

    /**
     * Checks a job id or key: not empty, at most 1024 bytes of UTF-8, well-formed, and for a job id
     * ({@code <id>}) without ':'.
     *
     * @throws ParameterException otherwise
     */
    static void checkId(CommandSpec spec, String value, String label) {
        if (value == null || value.isEmpty()) {
            throw new ParameterException(spec.commandLine(), label + " must not be empty");
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > Names.MAX_BYTES) {
            throw new ParameterException(spec.commandLine(), label + " is " + bytes + " bytes long; the maximum is "
                    + Names.MAX_BYTES);
        }
        // the core's own rules too, before connecting: a job id may not hold ':' (it would name
        // another job's keys), and no value may hold an unpaired surrogate
        try {
            if (label.equals("<id>")) {
                Names.jobId(value);
            } else {
                Names.check(value, label);
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for " + label + ": " + e.getMessage());
        }
    }

    /**
     * Opens a queue as it is stored, so that forgetting {@code --partitions} never hides the jobs
     * of a sharded queue: without it, the count stored with the queue decides; with it, a new
     * queue is sharded into that many partitions, and a count that differs from the stored one is
     * refused rather than guessed at.
     *
     * @param partitions the {@code --partitions} value, or null when not given
     * @throws ParameterException if {@code partitions} differs from the stored count
     */
    static QueueOperations openAsStored(CommandSpec spec, QueueClient client, String queue, Integer partitions) {
        if (partitions == null) {
            return client.open(queue);
        }
        int stored = client.storedPartitions(queue);
        if (stored != 0 && stored != partitions) {
            throw new ParameterException(spec.commandLine(), "--partitions " + partitions + " does not match queue "
                    + queue + ", which is stored as sharded into " + stored + " partitions; leave --partitions out "
                    + "and the stored count is used");
        }
        return client.shardedQueue(queue, partitions);
    }

    /**
     * @return {@code value}, once known to be in {@code min..max}
     * @throws ParameterException otherwise, naming the option
     */
    static long inRange(CommandSpec spec, String option, long value, long min, long max, String unit) {
        if (value < min || value > max) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '" + option + "': " + value
                    + " is outside " + min + ".." + max + unit);
        }
        return value;
    }
}
