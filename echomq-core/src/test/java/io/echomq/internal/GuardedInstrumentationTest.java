package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.Instrumentation;
import io.echomq.RecordingInstrumentation;
import io.echomq.queue.SettleOutcome;
import org.junit.jupiter.api.Test;

/** The guard around a user's instrumentation: nothing it throws escapes, and each method's first failure is logged. */
class GuardedInstrumentationTest {

    @Test
    void failuresAreSwallowedAndTheFirstOfEachMethodIsMarkedLogged() {
        RecordingInstrumentation throwing = new RecordingInstrumentation(true);
        GuardedInstrumentation g = (GuardedInstrumentation) GuardedInstrumentation.of(throwing);

        g.jobsEnqueued("q", 1);
        g.jobsEnqueued("q", 2);
        g.jobSettled("q", SettleOutcome.DEAD, 5);
        assertThat(g.leaseHeld(Instrumentation.LockMode.FENCED, null)).as("a throwing leaseHeld yields no handle")
                .isNull();

        assertThat(throwing.calls).hasSize(4);
        assertThat(g.warnedOf("leaseHeld")).isTrue();
        assertThat(g.warnedOf("jobsEnqueued")).isTrue();
        assertThat(g.warnedOf("jobSettled")).isTrue();
        assertThat(g.warnedOf("jobWaited")).isFalse();
        assertThat(g.warnedOf("lockAcquire")).isFalse();
    }

    @Test
    void noneAndAGuardAreNotWrappedAgainAndNullIsRefused() {
        assertThat(GuardedInstrumentation.of(Instrumentation.NONE)).isSameAs(Instrumentation.NONE);
        Instrumentation g = GuardedInstrumentation.of(new RecordingInstrumentation());
        assertThat(GuardedInstrumentation.of(g)).isSameAs(g);
        assertThatThrownBy(() -> GuardedInstrumentation.of(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aVirtualMachineErrorIsNotSwallowed() {
        Instrumentation g = GuardedInstrumentation.of(new Instrumentation() {
            @Override
            public void jobWaited(String queue, long millis) {
                throw new OutOfMemoryError("test");
            }

            @Override
            public void jobsEnqueued(String queue, int count) {
                throw new AssertionError("an Error that is not the VM's");
            }
        });
        assertThatThrownBy(() -> g.jobWaited("q", 1)).isInstanceOf(OutOfMemoryError.class);
        g.jobsEnqueued("q", 1);   // swallowed
    }
}
