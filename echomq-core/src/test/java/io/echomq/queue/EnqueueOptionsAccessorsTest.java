package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Every option set is read back as it was set, and an unset one reads as empty (its default applies). */
class EnqueueOptionsAccessorsTest {

    @Test
    void theDefaultsReadAsEmpty() {
        EnqueueOptions o = EnqueueOptions.defaults();
        assertThat(o.runAt()).isEmpty();
        assertThat(o.backoffBase()).isEmpty();
        assertThat(o.backoffCap()).isEmpty();
    }

    @Test
    void setOptionsReadBackAsTheyWereSet() {
        Instant at = Instant.parse("2020-01-02T03:04:05.678Z");
        EnqueueOptions o = EnqueueOptions.defaults().withRunAt(at)
                .withBackoff(Duration.ofSeconds(2), Duration.ofMinutes(3));
        assertThat(o.runAt()).contains(at);
        assertThat(o.backoffBase()).contains(Duration.ofSeconds(2));
        assertThat(o.backoffCap()).contains(Duration.ofMinutes(3));
        assertThat(o.withDelay(Duration.ofSeconds(1)).runAt()).as("a delay replaces the run-at time").isEmpty();
    }
}
