package io.echomq.opentelemetry;

import static io.echomq.opentelemetry.Otel.attr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Worker;
import io.echomq.testkit.RedisExtension;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The spans of {@link EchoMQTracing} on a real Redis, exported to the SDK's in-memory exporter:
 * their kinds, names and attributes, the producer-consumer parentage through the job hash (also
 * from a {@code traceparent} written by hand, as another language's producer would), failures,
 * the lock spans, and that a throwing span processor never fails a job.
 */
class TracingTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Duration WAIT = Duration.ofSeconds(15);

    @BeforeEach
    void flush() {
        REDIS.flushAll();
    }

    @Test
    void theHandlerRunsInAConsumerSpanThatIsAChildOfTheEnqueuesProducerSpan() {
        try (Otel otel = new Otel();
             QueueClient client = QueueClient.builder().redisUrl(REDIS.url())
                     .instrumentation(EchoMQTracing.builder(otel.sdk).build()).build()) {
            Queue q = client.queue("emails");
            Span request = otel.sdk.getTracer("test").spanBuilder("POST /signup").startSpan();
            String id;
            try (Scope ignored = request.makeCurrent()) {
                id = q.enqueue("hello");
            } finally {
                request.end();
            }
            q.enqueue("bad".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withMaxAttempts(1));
            q.enqueueAll(List.of(JobRequest.of("b1"), JobRequest.of("b2")));
            try (Worker w = client.worker("emails", job -> {
                Span inner = otel.sdk.getTracer("test").spanBuilder("render " + job.payloadUtf8()).startSpan();
                inner.end();
                if (job.payloadUtf8().equals("bad")) {
                    throw new IllegalStateException("planned");
                }
            }).logFailures(false).start()) {
                await().atMost(WAIT).until(() -> otel.named("process emails").size() == 4);
            }

            List<SpanData> sends = otel.named("send emails");
            assertThat(sends).hasSize(3);
            SpanData send = sends.get(0);
            assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
            assertThat(send.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
            assertThat(attr(send, QueueSpans.MESSAGING_SYSTEM)).isEqualTo("echomq");
            assertThat(attr(send, QueueSpans.DESTINATION)).isEqualTo("emails");
            assertThat(attr(send, QueueSpans.OPERATION_TYPE)).isEqualTo("send");
            assertThat(attr(send, QueueSpans.OPERATION_NAME)).isEqualTo("send");
            assertThat(attr(send, QueueSpans.MESSAGE_ID)).isEqualTo(id);
            assertThat(attr(sends.get(2), QueueSpans.BATCH_COUNT)).isEqualTo(2L);
            assertThat(attr(sends.get(2), QueueSpans.MESSAGE_ID)).isNull();

            SpanData process = otel.named("process emails").stream()
                    .filter(s -> id.equals(attr(s, QueueSpans.MESSAGE_ID))).findFirst().orElseThrow();
            assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
            assertThat(process.getTraceId()).isEqualTo(request.getSpanContext().getTraceId());
            assertThat(process.getParentSpanId()).isEqualTo(send.getSpanId());
            assertThat(attr(process, QueueSpans.OPERATION_TYPE)).isEqualTo("process");
            assertThat(attr(process, QueueSpans.DESTINATION)).isEqualTo("emails");
            assertThat(attr(process, QueueSpans.ATTEMPT)).isEqualTo(1L);
            assertThat(attr(process, QueueSpans.OUTCOME)).isEqualTo("completed");
            assertThat(process.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
            assertThat(otel.named("render hello").get(0).getParentSpanId()).as("the handler's own span")
                    .isEqualTo(process.getSpanId());

            SpanData dead = otel.named("process emails").stream()
                    .filter(s -> "dead".equals(attr(s, QueueSpans.OUTCOME))).findFirst().orElseThrow();
            assertThat(dead.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(attr(dead, QueueSpans.ERROR_TYPE)).isEqualTo(IllegalStateException.class.getName());
            assertThat(dead.getEvents()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("exception"));
            assertThat(dead.getParentSpanId()).isEqualTo(sends.get(1).getSpanId());
            assertThat(otel.named("process emails")).filteredOn(s -> sends.get(2).getSpanId().equals(s.getParentSpanId()))
                    .as("both jobs of the bulk continue its one send span").hasSize(2);
        }
    }

    @Test
    void aTraceparentWrittenByAnotherLanguagesProducerIsContinued() {
        String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        String parent = "00f067aa0ba902b7";
        REDIS.raw().call("HSET", "emq:{foreign}:job:42", "payload", "from python", "traceparent",
                "00-" + trace + "-" + parent + "-01", "tracestate", "vendor=abc");
        REDIS.raw().call("RPUSH", "emq:{foreign}:wait", "42");
        try (Otel otel = new Otel();
             QueueClient client = QueueClient.builder().redisUrl(REDIS.url())
                     .instrumentation(EchoMQTracing.builder(otel.sdk).build()).build();
             Worker w = client.worker("foreign", job -> { }).start()) {
            await().atMost(WAIT).until(() -> otel.named("process foreign").size() == 1);
            SpanData process = otel.named("process foreign").get(0);
            assertThat(process.getTraceId()).isEqualTo(trace);
            assertThat(process.getParentSpanId()).isEqualTo(parent);
            assertThat(process.getParentSpanContext().isRemote()).isTrue();
            assertThat(process.getSpanContext().getTraceState().get("vendor")).isEqualTo("abc");
            assertThat(attr(process, QueueSpans.MESSAGE_ID)).isEqualTo("42");
        }
    }

    @Test
    void aJobWithoutContextStartsANewTraceAndAFailingEnqueueIsRecorded() {
        REDIS.raw().call("HSET", "emq:{bare}:job:1", "payload", "x");
        REDIS.raw().call("RPUSH", "emq:{bare}:wait", "1");
        REDIS.raw().call("SET", "emq:{broken}:pending", "not a zset");
        try (Otel otel = new Otel();
             QueueClient client = QueueClient.builder().redisUrl(REDIS.url())
                     .instrumentation(EchoMQTracing.builder(otel.sdk).build()).build()) {
            assertThatThrownBy(() -> client.queue("broken").enqueue("x")).isInstanceOf(RuntimeException.class);
            SpanData failed = otel.named("send broken").get(0);
            assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(attr(failed, QueueSpans.ERROR_TYPE)).isNotBlank();
            try (Worker w = client.worker("bare", job -> { }).start()) {
                await().atMost(WAIT).until(() -> otel.named("process bare").size() == 1);
            }
            assertThat(otel.named("process bare").get(0).getParentSpanContext().isValid()).isFalse();
        }
    }

    @Test
    void aThrowingSpanProcessorNeverFailsAJob() {
        AtomicInteger thrown = new AtomicInteger();
        SpanProcessor broken = new SpanProcessor() {
            @Override
            public void onStart(Context parentContext, ReadWriteSpan span) {
                thrown.incrementAndGet();
                throw new IllegalStateException("exporter down");
            }

            @Override
            public boolean isStartRequired() {
                return true;
            }

            @Override
            public void onEnd(ReadableSpan span) {
                thrown.incrementAndGet();
                throw new IllegalStateException("exporter down");
            }

            @Override
            public boolean isEndRequired() {
                return true;
            }
        };
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));   // slf4j-simple writes to System.err
        try (Otel otel = new Otel(broken);
             QueueClient client = QueueClient.builder().redisUrl(REDIS.url())
                     .instrumentation(EchoMQTracing.builder(otel.sdk).build()).build()) {
            Queue q = client.queue("safe");
            q.enqueueAll(List.of(JobRequest.of("1"), JobRequest.of("2")));
            q.enqueue("3");
            try (Worker w = client.worker("safe", job -> { }).start()) {
                await().atMost(WAIT).until(() -> q.stats().completed() == 3);
                assertThat(w.isRunning()).isTrue();
            }
            assertThat(thrown).as("the processor did throw").hasPositiveValue();
            assertThat(q.stats().dead()).isZero();
        } finally {
            System.setErr(err);
        }
        String text = log.toString(StandardCharsets.UTF_8);
        assertThat(text.lines().filter(l -> l.contains("WARN") && l.contains("threw in enqueueStarting")).count())
                .as("two enqueues, logged once").isEqualTo(1);
        assertThat(text.lines().filter(l -> l.contains("WARN") && l.contains("threw in jobStarting")).count())
                .as("three jobs, logged once").isEqualTo(1);
    }

    @Test
    void lockSpansAreOffByDefaultAndOnWhenAsked() {
        try (Otel otel = new Otel()) {
            try (LockClient locks = LockClient.builder().redisUrl(REDIS.url())
                    .instrumentation(EchoMQTracing.builder(otel.sdk).build()).build()) {
                locks.tryAcquire("a", Duration.ofSeconds(5)).orElseThrow().release();
            }
            assertThat(otel.spans()).isEmpty();

            try (LockClient locks = LockClient.builder().redisUrl(REDIS.url())
                    .instrumentation(EchoMQTracing.builder(otel.sdk).lockSpans(true).build()).build()) {
                Lease a = locks.tryAcquire("a", Duration.ofSeconds(5)).orElseThrow();
                assertThat(locks.tryAcquire("a", Duration.ofSeconds(5))).isEmpty();
                a.release();
            }
            assertThat(otel.named("lock acquire")).extracting(s -> attr(s, LockSpans.OUTCOME))
                    .containsExactly("acquired", "busy");
            assertThat(otel.named("lock acquire")).allSatisfy(s -> {
                assertThat(attr(s, LockSpans.MODE)).isEqualTo("fenced");
                assertThat(s.getKind()).isEqualTo(SpanKind.INTERNAL);
            });
            SpanData hold = otel.named("lock hold").get(0);
            assertThat(attr(hold, LockSpans.ENDED)).isEqualTo("released");
            assertThat(otel.spans()).allSatisfy(s -> assertThat(s.getAttributes().asMap().values()).doesNotContain("a"));
        }
    }
}
