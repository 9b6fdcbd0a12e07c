package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Enqueue, single and bulk: what is written, in what order, in how many round trips, and what is refused. */
@Timeout(60)
class EnqueueTest extends SemanticsTestBase {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void singleEnqueueWritesTheHashAndThePendingEntry() {
        String id = queue.enqueue("hello");

        assertThat(id).isEqualTo("1");
        assertThat(get(P + "seq")).isEqualTo("1");
        // a small pending job is its payload and its enqueue time, one field of its pending bucket
        // and no hash of its own: state (pending) and attempts (0) are the protocol's defaults when
        // absent, so they cost no bytes per job
        assertThat(hash(id)).isEmpty();
        String value = (String) raw().call("HGET", P + "pb:0", id);
        assertThat(value).endsWith(":hello");
        assertThat(Long.parseLong(value.substring(0, value.indexOf(':')))).as("created_at, server epoch ms")
                .isBetween(System.currentTimeMillis() - 60_000, System.currentTimeMillis() + 60_000);
        JobInfo info = queue.inspect(id).orElseThrow();
        assertThat(info.payloadUtf8()).isEqualTo("hello");
        assertThat(info.state()).isEqualTo("pending");
        assertThat(info.attempts()).isZero();
        // priority 0: the id at the back of the wait LIST, nothing in the pending ZSET
        assertThat(waiting()).containsExactly(id);
        assertThat(card(PENDING)).isZero();
        assertThat(queue.enqueue(utf8("second"))).isEqualTo("2");
    }

    @Test
    void textWithOptionsIsEnqueuedAsUtf8AndKeepsItsOptions() {
        EnqueueResult r = queue.enqueue("héllo", EnqueueOptions.defaults().withPriority(3)
                .withIdempotencyKey("text-1", Duration.ofMinutes(5)));
        assertThat(r.created()).isTrue();
        assertThat(queue.inspect(r.id()).orElseThrow().fields().get("payload")).isEqualTo(utf8("héllo"));
        assertThat(hash(r.id())).containsEntry("priority", "3").containsEntry("idem", "text-1");
        // the same key in its window names the same job, through the text form too
        EnqueueResult again = queue.enqueue("other", EnqueueOptions.defaults()
                .withIdempotencyKey("text-1", Duration.ofMinutes(5)));
        assertThat(again.created()).isFalse();
        assertThat(again.id()).isEqualTo(r.id());

        List<EnqueueResult> bulk = queue.enqueueAll(List.of(
                JobRequest.of("a", EnqueueOptions.defaults().withPriority(9)), JobRequest.of("b")));
        assertThat(hash(bulk.get(0).id())).containsEntry("payload", "a").containsEntry("priority", "9");
        assertThat(hash(bulk.get(1).id())).containsOnlyKeys("payload", "created_at").containsEntry("payload", "b");

        long before = card(PENDING) + waiting().size();
        assertThatThrownBy(() -> queue.enqueue((String) null, EnqueueOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload");
        assertThatThrownBy(() -> JobRequest.of(null, EnqueueOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("payload");
        assertThatThrownBy(() -> queue.enqueue("x", null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(card(PENDING) + waiting().size()).as("nothing was added by a refused enqueue").isEqualTo(before);
    }

    @Test
    void optionsAreWrittenToTheHash() {
        EnqueueResult r = queue.enqueue(utf8("x"), EnqueueOptions.defaults().withPriority(7).withMaxAttempts(5)
                .withBackoff(Duration.ofSeconds(2), Duration.ofSeconds(30))
                .withIdempotencyKey("key-1", Duration.ofMinutes(5)));
        assertThat(r.created()).isTrue();
        assertThat(hash(r.id())).containsEntry("priority", "7").containsEntry("max_attempts", "5")
                .containsEntry("backoff_ms", "2000").containsEntry("backoff_max_ms", "30000")
                .containsEntry("idem", "key-1");
        assertThat(get(P + "idem:key-1")).isEqualTo(r.id());
        assertThat(pttl(P + "idem:key-1")).isBetween(240_000L, 300_000L);
        assertThat(queue.claim(LONG_LEASE).orElseThrow().maxAttempts()).isEqualTo(5);
    }

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void bulkOf2500IsThreeScriptCallsInOrderAndNothingElse() throws Exception {
        queue.enqueue("warm-up"); // connects and loads the script, outside the recording
        queue.claim(LONG_LEASE).orElseThrow().complete();
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 2500; i++) {
            requests.add(JobRequest.of("bulk-" + i));
        }

        Recorded<List<EnqueueResult>> r = recorded(() -> queue.enqueueAll(requests));
        assertThat(r.thrown()).isNull();

        // Redis's MONITOR also lists the commands a script runs (as client "lua"); the only commands
        // outside the enqueue script's own are the three EVALSHA calls, one per chunk of 1000, each
        // the compact form (default options): its ids come from one GET and one SET of the sequence,
        // and one EXISTS proves the chunk's fresh job keys absent before its first write; one TYPE
        // per pending bucket the chunk fills proves it a hash.
        Set<String> scriptCommands = Set.of("TIME", "TYPE", "GET", "SET", "HSET", "RPUSH", "PUBLISH", "HMGET", "EXISTS");
        assertThat(r.commands().stream().map(c -> c.get(0).toUpperCase())
                .filter(c -> !scriptCommands.contains(c)).toList())
                .containsExactly("EVALSHA", "EVALSHA", "EVALSHA");
        assertThat(r.count("TIME")).as("one run of the script per chunk").isEqualTo(3);
        assertThat(r.count("PUBLISH")).isEqualTo(3);
        assertThat(r.count("HMGET")).as("the events settings, one read per call").isEqualTo(3);
        assertThat(r.count("XADD")).as("no enqueued events unless the queue asks for them").isZero();
        assertThat(r.count("INCR")).as("no INCR per job").isZero();
        assertThat(r.count("SET")).as("one SET of the sequence per call").isEqualTo(3);
        assertThat(r.count("EXISTS")).as("one EXISTS over the fresh job keys per call").isEqualTo(3);
        assertThat(r.commands().stream().filter(c -> c.get(0).equalsIgnoreCase("EVALSHA")).map(c -> c.get(1)))
                .as("the compact script").containsOnly(io.echomq.internal.Scripts.ENQUEUE_COMPACT.sha());
        assertThat(r.count("ZADD")).as("priority 0 never touches the pending ZSET").isZero();
        assertThat(r.count("RPUSH")).as("priority-0 ids pushed 500 at a time: 2 + 2 + 1").isEqualTo(5);
        // ids 2..2501 in chunks of 1000: one HSET per pending bucket (128 ids) each chunk fills
        long buckets = 0;
        for (long from = 2; from <= 2501; from += 1000) {
            long to = Math.min(2501, from + 999);
            buckets += to / 128 - from / 128 + 1;
        }
        assertThat(r.count("HSET")).as("one HSET per bucket a chunk fills, not one per job").isEqualTo(buckets);
        List<Integer> chunkSizes = r.commands().stream().filter(c -> c.get(0).equalsIgnoreCase("EVALSHA"))
                .map(c -> Integer.parseInt(c.get(3 + 5 + 1))) // EVALSHA sha numkeys k1..k5 prefix count
                .toList();
        assertThat(chunkSizes).containsExactly(1000, 1000, 500);

        List<EnqueueResult> results = r.result();
        assertThat(results).hasSize(2500).allMatch(EnqueueResult::created);
        for (int i = 0; i < 2500; i++) {
            assertThat(results.get(i).id()).isEqualTo(Integer.toString(i + 2));
        }
        assertThat(pendingCount()).isEqualTo(2500);
        List<String> claimed = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            queue.claim(Queue.MAX_CLAIM, LONG_LEASE).forEach(j -> claimed.add(j.payloadUtf8()));
        }
        assertThat(claimed).hasSize(2500);
        for (int i = 0; i < 2500; i++) {
            assertThat(claimed.get(i)).isEqualTo("bulk-" + i);
        }
    }

    @Test
    void sameIdempotencyKeyInsideTheWindowReturnsTheFirstJob() {
        EnqueueOptions keyed = EnqueueOptions.defaults().withIdempotencyKey("invoice-42", Duration.ofHours(1));
        EnqueueResult first = queue.enqueue(utf8("first"), keyed);
        EnqueueResult second = queue.enqueue(utf8("second"), keyed);

        assertThat(first.created()).isTrue();
        assertThat(second.created()).isFalse();
        assertThat(second.id()).isEqualTo(first.id());
        assertThat(pendingCount()).isEqualTo(1);
        assertThat(get(P + "seq")).as("no id spent on the duplicate").isEqualTo("1");
        assertThat(field(first.id(), "payload")).isEqualTo("first");

        // inside one bulk, too
        List<EnqueueResult> bulk = queue.enqueueAll(List.of(
                new JobRequest(utf8("a"), EnqueueOptions.defaults().withIdempotencyKey("bulk-key", Duration.ofHours(1))),
                new JobRequest(utf8("b"), EnqueueOptions.defaults().withIdempotencyKey("bulk-key", Duration.ofHours(1))),
                new JobRequest(utf8("c"), keyed)));
        assertThat(bulk.get(0).created()).isTrue();
        assertThat(bulk.get(1)).isEqualTo(new EnqueueResult(bulk.get(0).id(), false));
        assertThat(bulk.get(2)).isEqualTo(new EnqueueResult(first.id(), false));
        assertThat(pendingCount()).isEqualTo(2);
    }

    @Test
    void afterTheWindowTheSameKeyEnqueuesANewJob() {
        EnqueueOptions keyed = EnqueueOptions.defaults().withIdempotencyKey("k", Duration.ofMillis(50));
        EnqueueResult first = queue.enqueue(utf8("first"), keyed);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> !exists(P + "idem:k"));

        EnqueueResult second = queue.enqueue(utf8("second"), keyed);
        assertThat(second.created()).isTrue();
        assertThat(second.id()).isNotEqualTo(first.id());
        assertThat(pendingIds()).containsExactly(first.id(), second.id());
        assertThat(get(P + "idem:k")).isEqualTo(second.id());
    }

    @Test
    void theIdempotencyKeyOutlivesTheJob() {
        // completed and deleted, the job still blocks duplicates for the rest of its window
        Queue q = client(b -> b.retainCompleted(Duration.ZERO)).queue("q");
        EnqueueOptions keyed = EnqueueOptions.defaults().withIdempotencyKey("once", Duration.ofHours(1));
        String id = q.enqueue(utf8("x"), keyed).id();
        assertThat(q.claim(LONG_LEASE).orElseThrow().complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(exists(jobKey(id))).isFalse();
        assertThat(q.enqueue(utf8("x"), keyed)).isEqualTo(new EnqueueResult(id, false));
        assertThat(pendingCount()).isZero();
    }

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void payloadLimitIsEnforcedBeforeRedis() throws Exception {
        Queue small = client(b -> b.maxPayloadBytes(10)).queue("q");
        assertThat(small.enqueue(new byte[10])).isEqualTo("1");
        small.claim(LONG_LEASE); // the connection is open: a refused call below would be seen

        Recorded<Object> single = recorded(() -> small.enqueue(new byte[11]));
        assertThat(single.thrown()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("11 bytes").hasMessageContaining("10 bytes");
        assertThat(single.commands()).isEmpty();

        Recorded<Object> bulk = recorded(() -> small.enqueueAll(List.of(
                JobRequest.of(new byte[1]), JobRequest.of(new byte[11]), JobRequest.of(new byte[2]))));
        assertThat(bulk.thrown()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("request 1");
        assertThat(bulk.commands()).as("nothing of the bulk was sent").isEmpty();
        assertThat(get(P + "seq")).isEqualTo("1");

        assertThatThrownBy(() -> queue.enqueue(new byte[QueueClient.DEFAULT_MAX_PAYLOAD_BYTES + 1]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(queue.enqueue(new byte[QueueClient.DEFAULT_MAX_PAYLOAD_BYTES])).isEqualTo("2");
    }

    @Test
    void everyByteValueRoundTrips() {
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) {
            all[i] = (byte) i;
        }
        byte[] reversed = new byte[256];
        for (int i = 0; i < 256; i++) {
            reversed[i] = all[255 - i];
        }
        String id = queue.enqueue(all);
        queue.enqueueAll(List.of(JobRequest.of(reversed), JobRequest.of(new byte[0])));

        assertThat(queue.inspect(id).orElseThrow().fields().get("payload")).isEqualTo(all);
        List<Job> jobs = queue.claim(3, LONG_LEASE);
        assertThat(jobs.get(0).payload()).isEqualTo(all);
        assertThat(jobs.get(1).payload()).isEqualTo(reversed);
        assertThat(jobs.get(2).payload()).isEmpty();

        // and through the dead set
        assertThat(jobs.get(0).failWithoutRetry("x")).isEqualTo(SettleOutcome.DEAD);
        assertThat(queue.dead(1).get(0).payload()).isEqualTo(all);
        assertThat(queue.redrive(1)).isEqualTo(1);
        assertThat(queue.claim(LONG_LEASE).orElseThrow().payload()).isEqualTo(all);
    }

    static Stream<Arguments> badOptions() {
        EnqueueOptions d = EnqueueOptions.defaults();
        Duration hour = Duration.ofHours(1);
        return Stream.of(
                opt("priority 1001", () -> d.withPriority(1001)),
                opt("priority -1001", () -> d.withPriority(-1001)),
                opt("null delay", () -> d.withDelay(null)),
                opt("negative delay", () -> d.withDelay(Duration.ofMillis(-1))),
                opt("delay over a year", () -> d.withDelay(EnqueueOptions.MAX_DELAY.plusMillis(1))),
                opt("null runAt", () -> d.withRunAt(null)),
                opt("runAt before 1970", () -> d.withRunAt(Instant.EPOCH.minusMillis(1))),
                opt("runAt past a year", () -> d.withRunAt(Instant.now().plus(Duration.ofDays(400)))),
                opt("maxAttempts 0", () -> d.withMaxAttempts(0)),
                opt("maxAttempts 1001", () -> d.withMaxAttempts(1001)),
                opt("backoff cap below base", () -> d.withBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1))),
                opt("zero backoff", () -> d.withBackoff(Duration.ZERO, hour)),
                opt("null backoff cap", () -> d.withBackoff(Duration.ofSeconds(1), null)),
                opt("sub-ms backoff", () -> d.withBackoff(Duration.ofNanos(10), hour)),
                opt("empty idempotency key", () -> d.withIdempotencyKey("", hour)),
                opt("null idempotency key", () -> d.withIdempotencyKey(null, hour)),
                opt("idempotency key of 1025 bytes", () -> d.withIdempotencyKey("k".repeat(1025), hour)),
                opt("zero idempotency window", () -> d.withIdempotencyKey("k", Duration.ZERO)),
                opt("null idempotency window", () -> d.withIdempotencyKey("k", null)));
    }

    private static Arguments opt(String name, ThrowingCallable build) {
        return Arguments.of(name, build);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badOptions")
    void badOptionsAreRejected(String name, ThrowingCallable build) {
        assertThatThrownBy(build).as(name).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void optionBoundsAreAccepted() {
        EnqueueOptions o = EnqueueOptions.defaults().withPriority(-1000).withMaxAttempts(1000)
                .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)).withDelay(EnqueueOptions.MAX_DELAY)
                .withIdempotencyKey("k".repeat(1024), Duration.ofMillis(1));
        assertThat(o.maxAttempts()).isEqualTo(1000);
        assertThat(o.idempotencyKey()).hasSize(1024);
        assertThat(queue.enqueue(utf8("x"), o).created()).isTrue();
    }

    static Stream<Arguments> badEnqueues() {
        return Stream.of(
                call("null text", q -> q.enqueue((String) null)),
                call("null bytes", q -> q.enqueue((byte[]) null)),
                call("null options", q -> q.enqueue(utf8("x"), null)),
                call("null list", q -> q.enqueueAll(null)),
                call("empty list", q -> q.enqueueAll(List.of())),
                call("null request", q -> q.enqueueAll(Arrays.asList(JobRequest.of("a"), null))),
                call("request without payload", q -> q.enqueueAll(List.of(new JobRequest(null,
                        EnqueueOptions.defaults())))),
                call("request without options", q -> q.enqueueAll(List.of(JobRequest.of("a"),
                        new JobRequest(utf8("b"), null)))));
    }

    private static Arguments call(String name, Consumer<Queue> call) {
        return Arguments.of(name, call);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badEnqueues")
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void badEnqueuesSendNothing(String name, Consumer<Queue> call) throws Exception {
        queue.stats(); // open the connection first
        Recorded<Object> r = recorded(() -> {
            call.accept(queue);
            return null;
        });
        assertThat(r.thrown()).as(name).isInstanceOf(IllegalArgumentException.class);
        assertThat(r.commands()).as(name).isEmpty();
        assertThat(dbSize()).isZero();
    }
}
