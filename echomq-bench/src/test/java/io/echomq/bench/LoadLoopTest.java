package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.bench.loop.LoadLoop;
import io.echomq.bench.loop.ResultLine;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The measuring loop and the result-line format, without Redis. */
class LoadLoopTest {
    @Test
    void countsOnlyTheMeasuredWindowAndSortsTheLatencies() throws Exception {
        AtomicLong calls = new AtomicLong();
        LoadLoop.Stats s = LoadLoop.run(3, Duration.ofMillis(50), Duration.ofMillis(200), t -> {
            calls.incrementAndGet();
            Thread.onSpinWait();
            return 1000L * (t + 1);
        });
        assertThat(s.ops()).isPositive().isLessThanOrEqualTo(calls.get());
        assertThat(s.sortedLatencies()).hasSize((int) s.ops()).isSorted();
        assertThat(s.quantileMicros(0)).isEqualTo(s.sortedLatencies()[0] / 1000.0);
        assertThat(s.quantileMicros(1)).isEqualTo(s.sortedLatencies()[s.sortedLatencies().length - 1] / 1000.0);
        assertThat(s.perSecond()).isPositive();
    }

    @Test
    void aFailingOperationFailsTheRun() {
        assertThatThrownBy(() -> LoadLoop.run(2, Duration.ZERO, Duration.ofSeconds(30), t -> {
            throw new IllegalStateException("boom");
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("boom");
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> LoadLoop.run(0, Duration.ZERO, Duration.ofSeconds(1), t -> 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("threads");
        assertThatThrownBy(() -> LoadLoop.run(1, Duration.ZERO, Duration.ZERO, t -> 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void resultLinesRoundTrip() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("peer", "redisson");
        fields.put("per_s", 1234.5);
        String line = ResultLine.format(fields);
        assertThat(line).isEqualTo("RESULT peer=redisson per_s=1234.5");
        assertThat(ResultLine.parse(line)).containsExactly(Map.entry("peer", "redisson"), Map.entry("per_s", "1234.5"));
        assertThat(ResultLine.parse("progress text")).isNull();
        assertThatThrownBy(() -> ResultLine.format(Map.of("bad key", 1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ResultLine.parse("RESULT novalue")).isInstanceOf(IllegalArgumentException.class);
    }
}
