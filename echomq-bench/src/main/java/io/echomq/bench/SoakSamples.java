package io.echomq.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The samples of {@code emq bench soak} and their verdict. A sample is the server's
 * {@code used_memory} and {@code DBSIZE} at a time since the start, with the jobs per second the
 * queue completed since the previous sample. The verdict reads the second half of the run (the
 * samples taken at or after half its length, when the events stream and the server's buffers
 * have reached their steady size): its first and last {@code used_memory}, and the ratio of its
 * largest to its smallest; the memory is bounded when that ratio is at most {@link #LIMIT}.
 */
final class SoakSamples {
    /** Largest max/min ratio of the second half's {@code used_memory} that passes: within 10%. */
    static final double LIMIT = 1.10;

    /** One sample: ms since the start, the server's figures, and the completions' rate since the last sample. */
    record Sample(long atMs, long usedMemory, long dbsize, long completed, double jobsPerS) {
        /** @return the sample as one line: time, used_memory, DBSIZE, jobs per second */
        String line() {
            return String.format(Locale.ROOT, "t=%5ds  used_memory=%,14d  dbsize=%,10d  jobs/s=%,9.0f",
                    atMs / 1000, usedMemory, dbsize, jobsPerS);
        }
    }

    /** The second half's figures and the verdict. */
    record Verdict(Sample first, Sample last, long min, long max, double ratio, boolean pass) {
        /** @return {@code PASS} or {@code FAIL} */
        String word() {
            return pass ? "PASS" : "FAIL";
        }
    }

    private final List<Sample> samples = new ArrayList<>();
    private long lastAtMs;
    private long lastCompleted;

    /**
     * Adds a sample, working out the jobs per second since the previous one (since the start, for
     * the first).
     *
     * @return the sample added
     */
    Sample add(long atMs, long usedMemory, long dbsize, long completed) {
        double perS = atMs > lastAtMs ? (completed - lastCompleted) * 1000.0 / (atMs - lastAtMs) : 0;
        Sample s = new Sample(atMs, usedMemory, dbsize, completed, perS);
        samples.add(s);
        lastAtMs = atMs;
        lastCompleted = completed;
        return s;
    }

    /** @return the samples so far, in order */
    List<Sample> all() {
        return List.copyOf(samples);
    }

    /**
     * @param runMs the run's length: the second half is the samples taken at or after half of it
     * @return the verdict over the second half
     * @throws IllegalStateException if the second half holds fewer than 2 samples
     */
    Verdict verdict(long runMs) {
        List<Sample> half = samples.stream().filter(s -> s.atMs() * 2 >= runMs).toList();
        if (half.size() < 2) {
            throw new IllegalStateException("the second half holds " + half.size() + " sample(s); 2 are needed");
        }
        long min = half.stream().mapToLong(Sample::usedMemory).min().orElseThrow();
        long max = half.stream().mapToLong(Sample::usedMemory).max().orElseThrow();
        double ratio = (double) max / min;
        return new Verdict(half.get(0), half.get(half.size() - 1), min, max, ratio, ratio <= LIMIT);
    }
}
