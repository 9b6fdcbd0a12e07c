package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.observe.Instrumentation;
import io.echomq.internal.JobFieldNames;
import io.echomq.server.CommandTap;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The trace calls of {@link Instrumentation} and the extra job hash fields they carry: written by
 * the enqueue's own script into every job it creates, read back with one {@code HMGET} before the
 * handler only when the instrumentation names fields, refused (the jobs still enqueued) when they
 * break the rules, and nothing sent or read when no instrumentation asks.
 */
class JobFieldsTest extends QueueTestBase {
    private static final Duration WAIT = Duration.ofSeconds(15);

    /** Gives {@code give} at every enqueue, names {@code read}, and records every trace call. */
    static final class Tracing implements Instrumentation {
        final Map<String, String> give;
        final Set<String> read;
        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        Tracing(Map<String, String> give, Set<String> read) {
            this.give = give;
            this.read = read;
        }

        @Override
        public Object enqueueStarting(String queue, int count, BiConsumer<String, String> fields) {
            give.forEach(fields);
            calls.add("enqueueStarting " + queue + " " + count);
            return "enqueue";
        }

        @Override
        public void enqueueEnded(Object handle, List<EnqueueResult> results, Throwable error) {
            calls.add("enqueueEnded " + handle + " " + (results == null ? "failed" : results.size()));
        }

        @Override
        public Set<String> jobFields() {
            return read;
        }

        @Override
        public Object jobStarting(String queue, Job job, Map<String, String> fields) {
            seen.add(fields);
            threads.add(Thread.currentThread().getName());
            calls.add("jobStarting " + queue + " " + job.id() + " " + job.attempt());
            return "job-" + job.id();
        }

        @Override
        public void handlerReturned(Object handle, Throwable error) {
            threads.add(Thread.currentThread().getName());
            calls.add("handlerReturned " + handle + " " + (error == null ? "-" : error.getMessage()));
        }

        @Override
        public void jobEnded(Object handle, SettleOutcome outcome, Throwable error) {
            calls.add("jobEnded " + handle + " " + outcome);
        }
    }

    private static final Map<String, String> CONTEXT = Map.of(
            "traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "tracestate", "congo=t61rcWkgMzE");

    private Map<String, String> hash(String queueName, String id) {
        @SuppressWarnings("unchecked")
        List<Object> flat = (List<Object>) raw().call("HGETALL", "emq:{" + queueName + "}:job:" + id);
        Map<String, String> out = new java.util.TreeMap<>();
        for (int i = 0; i < flat.size(); i += 2) {
            out.put(text(flat.get(i)), text(flat.get(i + 1)));
        }
        return out;
    }

    /**
     * The fields job {@code id} stores while it waits: its hash, or, when it has none (a default job of
     * the LIST layout waits in its pending bucket, docs/protocol.md), the two its bucket value holds.
     */
    private Map<String, String> storedFields(String queueName, String id) {
        Map<String, String> h = hash(queueName, id);
        if (!h.isEmpty()) {
            return h;
        }
        Object v = raw().call("HGET", "emq:{" + queueName + "}:pb:" + Long.parseLong(id) / 128, id);
        assertThat(v).as("job %s has a hash or a bucket field", id).isNotNull();
        String value = text(v);
        int colon = value.indexOf(':');
        return new java.util.TreeMap<>(Map.of("created_at", value.substring(0, colon),
                "payload", value.substring(colon + 1)));
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
    }

    @Test
    void theFieldsGoIntoEveryCreatedJobAndComeBackBeforeTheHandler() {
        Tracing t = new Tracing(CONTEXT, Set.of("traceparent", "tracestate", "baggage"));
        QueueClient c = client(b -> b.instrumentation(t));
        Queue q = c.queue("tr");
        EnqueueOptions keyed = EnqueueOptions.defaults().withIdempotencyKey("k", Duration.ofMinutes(1));
        List<EnqueueResult> two = q.enqueueAll(List.of(JobRequest.of("a"), JobRequest.of("b")));
        String first = q.enqueue("c".getBytes(StandardCharsets.UTF_8), keyed).id();
        assertThat(t.calls).containsExactly("enqueueStarting tr 2", "enqueueEnded enqueue 2",
                "enqueueStarting tr 1", "enqueueEnded enqueue 1");
        for (EnqueueResult r : two) {
            assertThat(hash("tr", r.id())).containsAllEntriesOf(CONTEXT).containsKeys("payload", "created_at");
        }
        // a duplicate idempotency key writes nothing into the job it maps to
        Tracing other = new Tracing(Map.of("traceparent", "00-11111111111111111111111111111111-2222222222222222-01"),
                Set.of());
        assertThat(client(b -> b.instrumentation(other)).queue("tr").enqueue("c".getBytes(StandardCharsets.UTF_8), keyed)
                .created()).isFalse();
        assertThat(hash("tr", first)).containsAllEntriesOf(CONTEXT);

        try (Worker w = c.worker("tr", job -> {
            if (job.payloadUtf8().equals("b")) {
                throw new IllegalStateException("planned");
            }
        }).logFailures(false).start()) {
            await().atMost(WAIT).until(() -> t.calls.stream().filter(s -> s.startsWith("jobEnded")).count() == 3);
        }
        assertThat(t.seen).hasSize(3).allSatisfy(f -> assertThat(f).isEqualTo(CONTEXT));
        String b = two.get(1).id();
        assertThat(t.calls).contains("jobStarting tr " + b + " 1", "handlerReturned job-" + b + " planned",
                "jobEnded job-" + b + " RETRYING", "jobEnded job-" + two.get(0).id() + " COMPLETED");
        // the start and the return of one handler are on the handler's thread, the same one
        for (int i = 0; i < t.threads.size(); i += 2) {
            assertThat(t.threads.get(i)).startsWith("emq-");
        }
    }

    @Test
    void aTraceparentWrittenByAnotherProducerIsReadBack() {
        Tracing t = new Tracing(Map.of(), Set.of("traceparent"));
        QueueClient c = client(b -> b.instrumentation(t));
        raw().call("HSET", "emq:{foreign}:job:7", "payload", "x", "traceparent", CONTEXT.get("traceparent"));
        raw().call("RPUSH", "emq:{foreign}:wait", "7");
        List<Job> got = c.queue("foreign").claim(1, Duration.ofMinutes(1));
        assertThat(got).hasSize(1);
        got.get(0).returnLease();
        try (Worker w = c.worker("foreign", job -> { }).start()) {
            await().atMost(WAIT).until(() -> t.calls.contains("jobEnded job-7 COMPLETED"));
        }
        assertThat(t.seen).containsExactly(Map.of("traceparent", CONTEXT.get("traceparent")));
    }

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void withoutFieldsNothingIsWrittenOrReadAndWithThemOneHmgetPerJob() {
        Tracing none = new Tracing(Map.of(), Set.of());
        QueueClient c = client(b -> b.instrumentation(none));
        Queue q = c.queue("plain");
        queue.enqueue("warm-up");   // loads the script outside the recording
        try (CommandTap tap = raw().monitor()) {
            String id = q.enqueue("p");
            queue.enqueue("none");   // the base client: no instrumentation at all
            assertThat(storedFields("plain", id).keySet()).containsExactlyInAnyOrder("payload", "created_at");
            // MONITOR reports asynchronously, in order: once the second enqueue is seen, so is the first
            assertThat(tap.awaitCommand(cmd -> cmd.get(0).equalsIgnoreCase("EVALSHA") && cmd.contains("none"), WAIT))
                    .as("the second enqueue reached the tap").isTrue();
            List<Integer> argc = tap.commands().stream().filter(cmd -> cmd.get(0).equalsIgnoreCase("EVALSHA"))
                    .map(List::size).toList();
            assertThat(argc).as("the same ARGV with and without an instrumentation that gives no field")
                    .hasSize(2).containsOnly(argc.get(0));
            try (Worker w = c.worker("plain", job -> { }).start()) {
                await().atMost(WAIT).until(() -> none.calls.contains("jobEnded job-" + id + " COMPLETED"));
            }
            assertThat(none.seen).containsExactly(Map.of());
            assertThat(jobHmgets(tap)).as("no HMGET of a job when no field is named").isZero();

            Tracing named = new Tracing(CONTEXT, Set.of("traceparent", "tracestate"));
            QueueClient t = client(b -> b.instrumentation(named));
            t.queue("named").enqueueAll(List.of(JobRequest.of("1"), JobRequest.of("2"), JobRequest.of("3")));
            try (Worker w = t.worker("named", job -> { }).start()) {
                await().atMost(WAIT).until(() -> named.calls.stream().filter(x -> x.startsWith("jobEnded")).count() == 3);
            }
            assertThat(jobHmgets(tap)).as("one HMGET per job").isEqualTo(3);
            assertThat(named.seen).hasSize(3).allSatisfy(f -> assertThat(f).isEqualTo(CONTEXT));
        }
    }

    /** @return the HMGETs of a job hash that ask for no protocol field: the worker's, not a script's own */
    private static long jobHmgets(CommandTap tap) {
        return tap.commands().stream()
                .filter(cmd -> cmd.get(0).equalsIgnoreCase("HMGET") && cmd.get(1).contains("}:job:")
                        && cmd.subList(2, cmd.size()).stream().noneMatch(JobFieldNames.RESERVED::contains))
                .count();
    }

    @Test
    void fieldsThatBreakTheRulesAreDroppedAndTheJobsStillEnqueued() {
        String big = "x".repeat(Instrumentation.MAX_JOB_FIELD_BYTES);
        for (Map<String, String> bad : List.of(Map.of("traceparent", "ok", "state", "done"),
                Map.of("Trace", "1"), Map.of("tracestate", big), Map.of("a:b", "1"))) {
            Tracing t = new Tracing(bad, Set.of());
            String id = client(b -> b.instrumentation(t)).queue("bad").enqueue("j");
            assertThat(storedFields("bad", id).keySet()).as("%s", bad).containsExactlyInAnyOrder("payload", "created_at");
            assertThat(stateOf("bad", id)).isEqualTo("pending");
        }
        Map<String, String> nine = new java.util.LinkedHashMap<>();
        for (int i = 0; i < Instrumentation.MAX_JOB_FIELDS + 1; i++) {
            nine.put("f" + i, "v");
        }
        String id = client(b -> b.instrumentation(new Tracing(nine, Set.of()))).queue("bad").enqueue("j");
        assertThat(storedFields("bad", id).keySet()).containsExactlyInAnyOrder("payload", "created_at");
    }

    @Test
    void theCollectorStatesItsBounds() {
        JobFields.Collector c = new JobFields.Collector();
        c.accept("traceparent", "a");
        c.accept("traceparent", "bb");   // replaced, not added
        assertThatThrownBy(() -> c.accept("payload", "x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("field of the protocol");
        assertThat(c.close()).as("one bad field spoils the call").isEmpty();
        assertThatThrownBy(() -> c.accept("tracestate", "x")).isInstanceOf(IllegalStateException.class);

        JobFields.Collector ok = new JobFields.Collector();
        ok.accept("traceparent", "a");
        ok.accept("traceparent", "bb");
        List<String> args = new ArrayList<>();
        for (byte[] a : ok.close()) {
            args.add(new String(a, StandardCharsets.UTF_8));
        }
        assertThat(args).containsExactly("1", "traceparent", "bb");
    }

    @Test
    void aShardedQueueCarriesTheFieldsIntoEveryPartitionWithOneTrace() {
        Tracing t = new Tracing(CONTEXT, Set.of("traceparent"));
        ShardedQueue s = client(b -> b.instrumentation(t)).shardedQueue("sq", 3);
        List<EnqueueResult> got = s.enqueueAll(List.of(JobRequest.of("a"), JobRequest.of("b"), JobRequest.of("c")));
        assertThat(t.calls).containsExactly("enqueueStarting sq 3", "enqueueEnded enqueue 3");
        for (EnqueueResult r : got) {
            String[] partitionAndId = r.id().split("-", 2);
            assertThat(hash("sq#" + partitionAndId[0], partitionAndId[1])).containsAllEntriesOf(CONTEXT);
        }
    }

    private String stateOf(String queueName, String id) {
        Object state = raw().call("HGET", "emq:{" + queueName + "}:job:" + id, "state");
        return state == null ? "pending" : text(state);
    }
}
