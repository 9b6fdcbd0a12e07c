package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
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
    void aFewMillisecondsOfCpuMeasureAtLeastWhatThisThreadBurned() {
        // the JDK's process clock counts 10 ms ticks on Linux, so 3 ms of work there reads 0 or 10 ms
        if (System.getProperty("os.name").toLowerCase().contains("linux")) {
            assertThat(ClientCpu.threadNanos()).as("/proc/self/task/*/schedstat").isNotNull().isNotEmpty();
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
