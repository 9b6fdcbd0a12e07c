package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class ClientCpuTest {
    private static final long MS = 1_000_000L;

    @Test
    void theThreadsClocksGiveTheDeltaToTheNanosecondWhenNoThreadEnded() {
        ClientCpu.Reading start = new ClientCpu.Reading(100 * MS, Map.of(1L, 100L, 2L, 200L));
        // a thread born in the phase counts whole; the process clock moved by one tick
        ClientCpu.Reading end = new ClientCpu.Reading(110 * MS, Map.of(1L, 150L, 2L, 260L, 3L, 40L));

        assertThat(ClientCpu.between(start, end)).isEqualTo(50 + 60 + 40);
    }

    @Test
    void aThreadThatEndedInThePhaseIsBoundedByTheProcessClock() {
        ClientCpu.Reading start = new ClientCpu.Reading(0, Map.of(1L, 0L, 2L, 5 * MS));
        ClientCpu.Reading end = new ClientCpu.Reading(60 * MS, Map.of(1L, MS));

        assertThat(ClientCpu.between(start, end)).isEqualTo(50 * MS);
    }

    @Test
    void withoutThreadClocksTheProcessClockAloneAndWithoutEitherMinusOne() {
        assertThat(ClientCpu.between(new ClientCpu.Reading(10 * MS, null), new ClientCpu.Reading(30 * MS, Map.of())))
                .isEqualTo(20 * MS);
        assertThat(ClientCpu.between(new ClientCpu.Reading(-1, null), new ClientCpu.Reading(-1, null))).isEqualTo(-1);
        assertThat(ClientCpu.between(new ClientCpu.Reading(-1, Map.of(1L, 0L)), new ClientCpu.Reading(-1, Map.of(1L, 7L))))
                .isEqualTo(7);
    }

    @Test
    void contextSwitchesAreTheThreadsRunCountDeltasAndUnknownWithoutThem() {
        ClientCpu.Reading start = new ClientCpu.Reading(0, Map.of(1L, 0L), Map.of(1L, 10L, 2L, 20L));
        // thread 2 ended in the phase (missed), thread 3 was born in it (counts whole)
        ClientCpu.Reading end = new ClientCpu.Reading(0, Map.of(1L, 0L), Map.of(1L, 15L, 3L, 4L));

        assertThat(ClientCpu.switchesBetween(start, end)).isEqualTo(5 + 4);
        assertThat(ClientCpu.switchesBetween(new ClientCpu.Reading(0, null), end)).isEqualTo(-1);
        assertThat(ClientCpu.switchesBetween(start, new ClientCpu.Reading(0, Map.of(1L, 0L)))).isEqualTo(-1);
    }

    @Test
    void aSchedstatLineHasThreeNumbersOrIsRefused() {
        assertThat(ClientCpu.parseSchedstat("123456 7890 42\n")).containsExactly(123456L, 7890L, 42L);
        assertThatThrownBy(() -> ClientCpu.parseSchedstat("123456")).isInstanceOf(NumberFormatException.class)
                .hasMessageContaining("three numbers");
    }

    @Test
    void aThreadThatSleepsAndWakesIsCountedAtLeastOnceAWake() throws InterruptedException {
        if (!System.getProperty("os.name").toLowerCase().contains("linux")) {
            assertThat(ClientCpu.switchesBetween(ClientCpu.read(), ClientCpu.read())).isEqualTo(-1);
            return;
        }
        int wakes = 50;
        // a thread that ended before the end reading would be missed: this one waits to be measured
        CountDownLatch done = new CountDownLatch(1);
        CountDownLatch measured = new CountDownLatch(1);
        Thread alive = new Thread(() -> {
            for (int i = 0; i < wakes; i++) {
                LockSupport.parkNanos(MS);   // each wake puts the thread back on a CPU
            }
            done.countDown();
            try {
                measured.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        ClientCpu.Reading before = ClientCpu.read();
        alive.start();
        done.await();
        ClientCpu.Reading after = ClientCpu.read();
        measured.countDown();
        alive.join();
        assertThat(ClientCpu.switchesBetween(before, after)).as("%d wakes of a thread alive at the end", wakes)
                .isGreaterThanOrEqualTo(wakes);
    }

    @Test
    void aFewMillisecondsOfCpuMeasureAtLeastWhatThisThreadBurned() {
        // the JDK's process clock counts 10 ms ticks on Linux, so 3 ms of work there reads 0 or 10 ms
        if (System.getProperty("os.name").toLowerCase().contains("linux")) {
            assertThat(ClientCpu.read().threadNanos()).as("/proc/self/task/*/schedstat").isNotNull().isNotEmpty();
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ClientCpu.Reading start = ClientCpu.read();
        long mine = threads.getCurrentThreadCpuTime();
        long sink = 0;
        while (threads.getCurrentThreadCpuTime() - mine < 3 * MS) {
            sink += Long.numberOfTrailingZeros(System.nanoTime());
        }
        long burned = threads.getCurrentThreadCpuTime() - mine;
        long measured = ClientCpu.nanosSince(start);

        assertThat(sink).isNotNegative();
        assertThat(measured).isGreaterThanOrEqualTo(burned).isLessThan(burned + 5_000 * MS);
    }
}
