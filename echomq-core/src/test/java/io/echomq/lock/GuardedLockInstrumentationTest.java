package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.RecordingInstrumentation;
import io.echomq.observe.Instrumentation;
import org.junit.jupiter.api.Test;

/** The guard around a user's lock instrumentation: nothing it throws escapes, and each method's first failure is logged. */
class GuardedLockInstrumentationTest {

    @Test
    void failuresAreSwallowedAndTheFirstOfEachMethodIsMarkedLogged() {
        RecordingInstrumentation throwing = new RecordingInstrumentation(true);
        GuardedLockInstrumentation g = (GuardedLockInstrumentation) GuardedLockInstrumentation.of(throwing);

        assertThat(g.leaseHeld(LockInstrumentation.LockMode.FENCED, null)).as("a throwing leaseHeld yields no handle")
                .isNull();
        g.leaseLost(LockInstrumentation.LockMode.FENCED, LossReason.EXPIRED);
        g.leaseLost(LockInstrumentation.LockMode.FENCED, LossReason.EXPIRED);

        assertThat(throwing.calls).hasSize(3);
        assertThat(g.warnedOf("leaseHeld")).isTrue();
        assertThat(g.warnedOf("leaseLost")).isTrue();
        assertThat(g.warnedOf("lockAcquire")).isFalse();
        assertThatThrownBy(() -> g.warnedOf("jobsEnqueued")).as("a queue method is not the lock guard's")
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void noneAndAGuardAreNotWrappedAgainAndNullIsRefused() {
        assertThat(GuardedLockInstrumentation.of(LockInstrumentation.NONE)).isSameAs(LockInstrumentation.NONE);
        LockInstrumentation g = GuardedLockInstrumentation.of(new RecordingInstrumentation());
        assertThat(GuardedLockInstrumentation.of(g)).isSameAs(g);
        assertThatThrownBy(() -> GuardedLockInstrumentation.of(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void oneThatOverridesNoLockMethodIsTreatedAsNone() {
        assertThat(GuardedLockInstrumentation.of(Instrumentation.NONE)).as("the joined NONE")
                .isSameAs(LockInstrumentation.NONE);
        assertThat(GuardedLockInstrumentation.of(new Instrumentation() {
            @Override
            public void jobsEnqueued(String queue, int count) {
            }
        })).as("one that watches only queues").isSameAs(LockInstrumentation.NONE);
        assertThat(GuardedLockInstrumentation.of(new Instrumentation() {
            @Override
            public void leaseEnded(Object handle) {
            }
        })).as("one that watches a lock").isNotSameAs(LockInstrumentation.NONE);
    }

    @Test
    void aVirtualMachineErrorIsNotSwallowed() {
        LockInstrumentation g = GuardedLockInstrumentation.of(new LockInstrumentation() {
            @Override
            public void leaseEnded(Object handle) {
                throw new StackOverflowError("test");
            }

            @Override
            public void leaseLost(LockMode mode, LossReason reason) {
                throw new AssertionError("an Error that is not the VM's");
            }
        });
        assertThatThrownBy(() -> g.leaseEnded("h")).isInstanceOf(StackOverflowError.class);
        g.leaseLost(LockInstrumentation.LockMode.FENCED, LossReason.EXPIRED);   // swallowed
    }
}
