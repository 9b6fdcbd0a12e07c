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
    void theTraceCallsAreGuardedTooAndTheJobFieldsAskedOnceAndChecked() {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        GuardedInstrumentation g = (GuardedInstrumentation) GuardedInstrumentation.of(new Instrumentation() {
            @Override
            public Object enqueueStarting(String queue, int count, java.util.function.BiConsumer<String, String> f) {
                throw new IllegalStateException("down");
            }

            @Override
            public java.util.Set<String> jobFields() {
                asked.incrementAndGet();
                return new java.util.LinkedHashSet<>(java.util.List.of("traceparent", "payload", "Bad", "tracestate"));
            }

            @Override
            public Object jobStarting(String queue, io.echomq.queue.Job job, java.util.Map<String, String> fields) {
                throw new IllegalStateException("down");
            }

            @Override
            public void handlerReturned(Object handle, Throwable error) {
                throw new IllegalStateException("down");
            }

            @Override
            public void jobEnded(Object handle, SettleOutcome outcome, Throwable error) {
                throw new IllegalStateException("down");
            }

            @Override
            public void enqueueEnded(Object handle, java.util.List<io.echomq.queue.EnqueueResult> r, Throwable e) {
                throw new IllegalStateException("down");
            }
        });
        assertThat(g.enqueueStarting("q", 1, (k, v) -> { })).isNull();
        assertThat(g.jobStarting("q", null, java.util.Map.of())).isNull();
        g.handlerReturned("h", null);
        g.jobEnded("h", SettleOutcome.COMPLETED, null);
        g.enqueueEnded("h", null, null);
        assertThat(g.jobFields()).containsExactlyInAnyOrder("traceparent", "tracestate");
        assertThat(g.jobFields()).isSameAs(g.jobFields());
        assertThat(asked).as("asked once, at construction").hasValue(1);
        for (String m : new String[] {"enqueueStarting", "enqueueEnded", "jobStarting", "handlerReturned", "jobEnded"}) {
            assertThat(g.warnedOf(m)).as(m).isTrue();
        }
        assertThat(g.warnedOf("jobFields")).isFalse();
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
