package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.RecordingInstrumentation;
import io.echomq.observe.Instrumentation;
import org.junit.jupiter.api.Test;

/** The guard around a user's queue instrumentation: nothing it throws escapes, and each method's first failure is logged. */
class GuardedQueueInstrumentationTest {

    @Test
    void failuresAreSwallowedAndTheFirstOfEachMethodIsMarkedLogged() {
        RecordingInstrumentation throwing = new RecordingInstrumentation(true);
        GuardedQueueInstrumentation g = (GuardedQueueInstrumentation) GuardedQueueInstrumentation.of(throwing);

        g.jobsEnqueued("q", 1);
        g.jobsEnqueued("q", 2);
        g.jobSettled("q", SettleOutcome.DEAD, 5);

        assertThat(throwing.calls).hasSize(3);
        assertThat(g.warnedOf("jobsEnqueued")).isTrue();
        assertThat(g.warnedOf("jobSettled")).isTrue();
        assertThat(g.warnedOf("jobWaited")).isFalse();
    }

    @Test
    void theTraceCallsAreGuardedTooAndTheJobFieldsAskedOnceAndChecked() {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        GuardedQueueInstrumentation g = (GuardedQueueInstrumentation) GuardedQueueInstrumentation.of(
                new QueueInstrumentation() {
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
        assertThat(GuardedQueueInstrumentation.of(QueueInstrumentation.NONE)).isSameAs(QueueInstrumentation.NONE);
        QueueInstrumentation g = GuardedQueueInstrumentation.of(new RecordingInstrumentation());
        assertThat(GuardedQueueInstrumentation.of(g)).isSameAs(g);
        assertThatThrownBy(() -> GuardedQueueInstrumentation.of(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aVirtualMachineErrorIsNotSwallowed() {
        QueueInstrumentation g = GuardedQueueInstrumentation.of(new QueueInstrumentation() {
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

    @Test
    void oneThatOverridesNoQueueMethodIsTreatedAsNone() {
        assertThat(GuardedQueueInstrumentation.of(Instrumentation.NONE)).as("the joined NONE")
                .isSameAs(QueueInstrumentation.NONE);
        assertThat(GuardedQueueInstrumentation.of(new Instrumentation() {
            @Override
            public void lockAcquire(LockMode mode, AcquireOutcome outcome, long nanos) {
            }
        })).as("one that watches only locks").isSameAs(QueueInstrumentation.NONE);
        assertThat(GuardedQueueInstrumentation.of(new Instrumentation() {
            @Override
            public void leasesReaped(String queue, long returned, long dead) {
            }
        })).as("one that watches a queue").isNotSameAs(QueueInstrumentation.NONE);
    }
}
