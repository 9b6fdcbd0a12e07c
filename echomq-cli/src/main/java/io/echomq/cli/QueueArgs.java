package io.echomq.cli;

import io.echomq.Names;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** The checks of a queue command's input, made before it connects, so bad input exits 2 without touching Redis. */
final class QueueArgs {
    private static final Pattern SHORT_DURATION = Pattern.compile("(\\d{1,18})(ms|s|m|h|d)");

    private QueueArgs() {
    }

    /**
     * Reads a duration as the commands' options write it: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h},
     * {@code 1d}, or ISO-8601 ({@code PT5M}). Each caller checks its own range and words its own refusal.
     *
     * @return the duration, or null when {@code text} is neither form or too large for a {@link Duration}
     */
    static Duration duration(String text) {
        Matcher m = SHORT_DURATION.matcher(text.strip().toLowerCase(Locale.ROOT));
        try {
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                };
            }
            return Duration.parse(text.strip());
        } catch (DateTimeException | ArithmeticException e) {
            return null;
        }
    }

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
