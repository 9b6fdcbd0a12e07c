package io.echomq.spring.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.LockInstrumentation.AcquireOutcome;
import io.echomq.lock.LockInstrumentation.LockMode;
import io.echomq.observe.Instrumentation;
import io.echomq.queue.SettleOutcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/** The rules of {@link CombinedInstrumentation}: every part hears every event, with its own handle and fields. */
class CombinedInstrumentationTest {
    /** Records what it is told, as "name:event"; throws from every call when {@code broken}. */
    static final class Recorder implements Instrumentation {
        final String name;
        final List<String> log;
        final Set<String> fields;
        final boolean broken;
        final List<Map<String, String>> seenFields = new ArrayList<>();

        Recorder(String name, List<String> log, Set<String> fields, boolean broken) {
            this.name = name;
            this.log = log;
            this.fields = fields;
            this.broken = broken;
        }

        private void record(String event) {
            log.add(name + ":" + event);
            if (broken) {
                throw new IllegalStateException(name + " is broken");
            }
        }

        @Override
        public void lockAcquire(LockMode mode, AcquireOutcome outcome, long nanos) {
            record("acquire");
        }

        @Override
        public Object enqueueStarting(String queue, int count, BiConsumer<String, String> fields) {
            record("send");
            return name + "-send";
        }

        @Override
        public Object jobStarting(String queue, io.echomq.queue.Job job, Map<String, String> fields) {
            seenFields.add(fields);
            record("start");
            return name + "-job";
        }

        @Override
        public void handlerReturned(Object handle, Throwable error) {
            record("returned " + handle);
        }

        @Override
        public void jobEnded(Object handle, SettleOutcome outcome, Throwable error) {
            record("ended " + handle);
        }

        @Override
        public Set<String> jobFields() {
            return fields;
        }
    }

    @Test
    void everyPartHearsEveryEventEvenAfterAnotherPartFailed() {
        List<String> log = new ArrayList<>();
        Recorder broken = new Recorder("a", log, Set.of(), true);
        Recorder fine = new Recorder("b", log, Set.of(), false);
        Instrumentation both = new EchoMQInstrumentation(List.of(broken, fine)).get();
        both.lockAcquire(LockMode.FENCED, AcquireOutcome.ACQUIRED, 1);
        Object handle = both.enqueueStarting("q", 1, (k, v) -> { });
        assertThat(log).containsExactly("a:acquire", "b:acquire", "a:send", "b:send");
        assertThat(handle).isNotNull();
    }

    @Test
    void eachPartGetsItsOwnHandleItsOwnFieldsAndTheThreadIsUndoneInnermostFirst() {
        List<String> log = new ArrayList<>();
        Recorder metrics = new Recorder("m", log, Set.of(), false);
        Recorder tracing = new Recorder("t", log, Set.of("traceparent", "tracestate"), false);
        Instrumentation both = new EchoMQInstrumentation(List.of(metrics, tracing)).get();
        assertThat(both.jobFields()).containsExactlyInAnyOrder("traceparent", "tracestate");

        Object handle = both.jobStarting("q", null, Map.of("traceparent", "00-x", "tracestate", "s"));
        both.handlerReturned(handle, null);
        both.jobEnded(handle, SettleOutcome.COMPLETED, null);
        assertThat(log).containsExactly("m:start", "t:start", "t:returned t-job", "m:returned m-job",
                "m:ended m-job", "t:ended t-job");
        assertThat(metrics.seenFields).containsExactly(Map.of());
        assertThat(tracing.seenFields).containsExactly(Map.of("traceparent", "00-x", "tracestate", "s"));
    }

    @Test
    void noPartOrOnePartIsUsedAsItIs() {
        Recorder only = new Recorder("x", new ArrayList<>(), Set.of(), false);
        assertThat(new EchoMQInstrumentation(List.of()).get()).isSameAs(Instrumentation.NONE);
        assertThat(new EchoMQInstrumentation(List.of(only)).get()).isSameAs(only);
    }
}
