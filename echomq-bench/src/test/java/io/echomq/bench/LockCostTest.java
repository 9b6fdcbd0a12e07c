package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.AcquireOptions;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.ReleaseOutcome;
import io.echomq.testkit.RedisExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * {@code emq bench lock-cost} prints its figures; and the bytes one uncontended
 * {@code tryAcquire} + {@code release()} pair allocates, on the caller's and the event loop's
 * threads together ({@link PairCost}), stay near what was measured when the lock path was cut (BENCHMARKS.md, "The lock path's client cost"). Allocation does not depend on
 * how busy the machine is, so unlike a timing it can be held to a bound. The bound is twice the
 * figure this test measured after the cut, so that the JIT's progress and idle background threads
 * cannot fail it, while a new object graph per call can.
 */
class LockCostTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final Duration TTL = Duration.ofSeconds(30);
    private static final int WARMUP = 1_000;
    private static final int PAIRS = 1_000;
    /** Twice the bytes per fenced pair this test measured after the cut. */
    static final double FENCED_BOUND = 2 * 4_300;
    /** Twice the bytes per plain pair this test measured after the cut. */
    static final double PLAIN_BOUND = 2 * 3_750;

    private static LockClient locks;

    @BeforeAll
    static void connect() {
        locks = LockClient.create(REDIS.url());
    }

    @AfterAll
    static void close() {
        locks.close();
    }

    @Test
    void aFencedPairAllocatesNoMoreThanTwiceTheMeasuredFigure() throws Exception {
        double perPair = bytesPerPair("alloc-fenced", AcquireOptions.defaults());
        assertThat(perPair).as("bytes per fenced pair").isPositive().isLessThanOrEqualTo(FENCED_BOUND);
    }

    @Test
    void aPlainPairAllocatesNoMoreThanTwiceTheMeasuredFigure() throws Exception {
        double perPair = bytesPerPair("alloc-plain", AcquireOptions.defaults().plain());
        assertThat(perPair).as("bytes per plain pair").isPositive().isLessThanOrEqualTo(PLAIN_BOUND);
    }

    @Test
    void lockCostPrintsItsModesTheBareLoopAndTheSummaryLine() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Bench.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute("lock-cost", "--pairs", "200", "--warmup", "0", "--idle-ms", "0", "--redis", REDIS.url());

        assertThat(exit).as(err.toString()).isZero();
        assertThat(out.toString()).containsPattern("(?m)^fenced +bytes/pair +[0-9,]+ ")
                .containsPattern("(?m)^plain +bytes/pair +[0-9,]+ ")
                .containsPattern("(?m)^limit +bytes/pair +[0-9,]+ ");
        String[] lines = out.toString().strip().split("\n");
        Matcher last = Pattern.compile(
                "lock-cost: fenced_bytes=([0-9]+) plain_bytes=([0-9]+) fenced_cpu_us=[0-9.]+ plain_cpu_us=[0-9.]+"
                        + " limit_bytes=([0-9]+) limit_cpu_us=-?[0-9.]+")
                .matcher(lines[lines.length - 1].strip());
        assertThat(last.matches()).as(out.toString()).isTrue();
        assertThat(Long.parseLong(last.group(1))).isPositive();
        assertThat(Long.parseLong(last.group(2))).isPositive();
        assertThat(Long.parseLong(last.group(3))).isPositive();
    }

    private static double bytesPerPair(String resource, AcquireOptions options) throws Exception {
        Runnable pair = () -> {
            Lease lease = locks.tryAcquire(resource, TTL, options).orElseThrow();
            assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
        };
        for (int i = 0; i < WARMUP; i++) {
            pair.run();
        }
        double perPair = PairCost.measure(pair, PAIRS, 0, false).totalBytesPerCall();
        System.out.printf("%s: %.0f bytes per acquire+release pair, all threads%n", resource, perPair);
        return perPair;
    }
}
