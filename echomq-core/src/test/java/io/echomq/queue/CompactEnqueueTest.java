package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.RedisCommandException;
import io.echomq.server.CommandTap;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The compact enqueue ({@code enqueue-compact-5.lua}, {@link CompactEnqueue}) against the full
 * form ({@code enqueue-5.lua}): the same default jobs sent both ways, one queue each, must leave
 * the same ids, job hashes, wait-list or ZSET order, stats, events and wake messages. Every state
 * is read raw. Queue {@code q} takes what {@link Enqueuer#send} chooses; queue {@code f} is
 * forced to the full form ({@link Enqueuer#full}).
 */
@Timeout(60)
class CompactEnqueueTest extends QueueTestBase {
    private static final String Q = "emq:{q}:";
    private static final String F = "emq:{f}:";

    private static List<JobRequest> jobs(int n) {
        List<JobRequest> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new JobRequest(("{\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults()));
        }
        return out;
    }

    /** Sends {@code requests} to {@code q} as {@link Enqueuer#send} chooses; asserts which forms it took. */
    private static List<EnqueueResult> chosen(Queue q, List<JobRequest> requests, byte[][] fields, Boolean... compact) {
        List<EnqueueCall> calls = q.partition().enqueuer().send(requests, fields);
        assertThat(calls).extracting(EnqueueCall::compact).as("the form of each call").containsExactly(compact);
        return q.partition().enqueuer().collect(calls);
    }

    /** Sends {@code requests} to {@code q} in the full form only, in chunks as {@link Enqueuer#send} cuts them. */
    private static List<EnqueueResult> full(Queue q, List<JobRequest> requests, byte[][] fields) {
        List<EnqueueCall> calls = new ArrayList<>();
        for (int from = 0; from < requests.size(); from += Enqueuer.CHUNK) {
            calls.add(q.partition().enqueuer().full(requests.subList(from, Math.min(requests.size(), from + Enqueuer.CHUNK)), fields));
        }
        return q.partition().enqueuer().collect(calls);
    }

    private List<String> strings(Object reply) {
        List<String> out = new ArrayList<>();
        for (Object o : (List<?>) reply) {
            out.add(o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o));
        }
        return out;
    }

    /**
     * Asserts that job {@code id} has the same hash, field for field in the same order, in both
     * queues; created_at, the server ms of each call, only has to be an integer within the run.
     */
    private void sameHash(String id, long from, long to) {
        List<String> q = strings(raw().call("HGETALL", Q + "job:" + id));
        List<String> f = strings(raw().call("HGETALL", F + "job:" + id));
        assertThat(q).as("job %s: the same fields in the same order", id).hasSameSizeAs(f);
        for (int i = 0; i < q.size(); i += 2) {
            assertThat(q.get(i)).isEqualTo(f.get(i));
            if (q.get(i).equals("created_at")) {
                assertThat(q.get(i + 1)).matches("[1-9][0-9]{12}");
                assertThat(Long.parseLong(q.get(i + 1))).isBetween(from, to);
            } else {
                assertThat(q.get(i + 1)).as("job %s field %s", id, q.get(i)).isEqualTo(f.get(i + 1));
            }
        }
        assertThat(raw().call("OBJECT", "ENCODING", Q + "job:" + id))
                .isEqualTo(raw().call("OBJECT", "ENCODING", F + "job:" + id));
    }

    /**
     * Asserts that job {@code id}, which the compact form left in its pending bucket with no hash, has
     * there the payload and created_at that the full form wrote into its hash.
     */
    private void sameFieldsInBucket(String id, long from, long to) {
        assertThat((Long) raw().call("EXISTS", Q + "job:" + id)).as("job %s has no hash while it waits", id).isZero();
        List<String> f = strings(raw().call("HGETALL", F + "job:" + id));
        assertThat(f).as("the full form's hash").hasSize(4).containsSubsequence("payload", "created_at");
        String value = strings(raw().call("HMGET", Q + "pb:" + Long.parseLong(id) / 128, id)).get(0);
        int colon = value.indexOf(':');
        assertThat(value.substring(0, colon)).matches("[1-9][0-9]{12}");
        assertThat(Long.parseLong(value.substring(0, colon))).isBetween(from, to);
        assertThat(value.substring(colon + 1)).as("job %s payload", id).isEqualTo(f.get(f.indexOf("payload") + 1));
    }

    private long serverMillis() {
        List<?> t = (List<?>) raw().call("TIME");
        return Long.parseLong(t.get(0).toString()) * 1000 + Long.parseLong(t.get(1).toString()) / 1000;
    }

    @Test
    void aDefaultBulkTakesTheCompactFormAndWritesWhatTheFullFormWrites() {
        Queue f = client.queue("f");
        queue.enqueue("first");   // both sequences start past 0: the INCRBY continues the sequence
        f.enqueue("first");
        long from = serverMillis();
        List<JobRequest> bulk = jobs(1300);
        List<EnqueueResult> compact = chosen(queue, bulk, JobFields.NO_ARGS, true, true);
        List<EnqueueResult> fullForm = full(f, bulk, JobFields.NO_ARGS);
        long to = serverMillis();

        assertThat(compact).isEqualTo(fullForm).hasSize(1300);
        assertThat(compact.get(0)).isEqualTo(new EnqueueResult("2", true));
        assertThat(compact.get(1299)).isEqualTo(new EnqueueResult("1301", true));
        for (int i = 2; i <= 1301; i += 97) {
            sameFieldsInBucket(Integer.toString(i), from, to);
        }
        sameFieldsInBucket("1301", from, to);
        assertThat(String.valueOf(raw().call("HGET", Q + "pb:7", "1000"))).endsWith(":{\"i\":998}");
        assertThat(strings(raw().call("LRANGE", Q + "wait", "0", "-1")))
                .isEqualTo(strings(raw().call("LRANGE", F + "wait", "0", "-1"))).hasSize(1301);
        assertThat(raw().call("GET", Q + "seq")).isEqualTo(raw().call("GET", F + "seq"));
        assertThat(queue.stats()).isEqualTo(f.stats());
        assertThat(queue.stats().pending()).isEqualTo(1301);
        assertThat(raw().call("EXISTS", Q + "pending", Q + "due")).isEqualTo(0L);
        assertThat(queue.claim(3, Duration.ofSeconds(30))).extracting(Job::id).containsExactly("1", "2", "3");
    }

    @Test
    void inTheZsetLayoutEveryJobIsScoredByItsSeqAsTheFullFormScoresIt() {
        Queue f = client.queue("f");
        queue.setLayout(QueueLayout.ZSET);
        f.setLayout(QueueLayout.ZSET);
        List<JobRequest> bulk = jobs(700);   // two ZADD chunks of the compact script
        assertThat(chosen(queue, bulk, JobFields.NO_ARGS, true)).isEqualTo(full(f, bulk, JobFields.NO_ARGS));
        List<String> q = strings(raw().call("ZRANGE", Q + "pending", "0", "-1", "WITHSCORES"));
        assertThat(q).isEqualTo(strings(raw().call("ZRANGE", F + "pending", "0", "-1", "WITHSCORES"))).hasSize(1400);
        assertThat(q.subList(0, 4)).containsExactly("1", "1", "2", "2");
        assertThat(raw().call("EXISTS", Q + "wait")).isEqualTo(0L);
        assertThat(queue.stats()).isEqualTo(f.stats());
    }

    @Test
    void extraFieldsAreStoredByEveryJobAsTheFullFormStoresThem() {
        Queue f = client.queue("f");
        byte[][] fields = {QueueWire.num(2), bytes("traceparent"),
                bytes("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"), bytes("tracestate"), bytes("a=1")};
        long from = serverMillis();
        List<JobRequest> bulk = jobs(20);
        assertThat(chosen(queue, bulk, fields, true)).isEqualTo(full(f, bulk, fields));
        long to = serverMillis();
        for (int i = 1; i <= 20; i++) {
            sameHash(Integer.toString(i), from, to);
        }
        assertThat(strings(raw().call("HKEYS", Q + "job:7")))
                .containsExactly("payload", "created_at", "traceparent", "tracestate");
    }

    @Test
    void aChunkWithOneJobOfAnOptionTakesTheFullFormAndTheOthersStayCompact() {
        List<JobRequest> bulk = new ArrayList<>(jobs(1500));
        bulk.set(1200, new JobRequest(bytes("urgent"), EnqueueOptions.defaults().withPriority(5)));
        bulk.set(1300, new JobRequest(bytes("explicit"), EnqueueOptions.defaults().withMaxAttempts(3)));
        List<EnqueueResult> got = chosen(queue, bulk, JobFields.NO_ARGS, true, false);
        assertThat(got).extracting(EnqueueResult::id).containsExactlyElementsOf(
                java.util.stream.IntStream.rangeClosed(1, 1500).mapToObj(Integer::toString).toList());
        assertThat(got).allMatch(EnqueueResult::created);
        assertThat(strings(raw().call("ZRANGE", Q + "pending", "0", "-1"))).containsExactly("1201");
        assertThat(raw().call("LLEN", Q + "wait")).isEqualTo(1499L);
        assertThat(raw().call("HGET", Q + "job:1301", "max_attempts")).isEqualTo("3");
        assertThat(queue.stats().pending()).isEqualTo(1500);
        assertThat(queue.claim(2, Duration.ofSeconds(30))).extracting(Job::id).containsExactly("1201", "1");
    }

    @Test
    void aKeyOfAnotherTypeOrABadSequenceRefusesTheCallAndNothingChanges() {
        for (String key : List.of("seq", "wait", "delayed", "pending")) {
            REDIS.flushAll();
            raw().call("SET", Q + key, "x");
            assertThatThrownBy(() -> chosen(queue, jobs(3), JobFields.NO_ARGS, true))
                    .isInstanceOf(RedisCommandException.class).hasMessageContaining("WRONGTYPE")
                    .hasMessageContaining(Q + key);
            assertThat(raw().call("DBSIZE")).as("only %s", key).isEqualTo(1L);
            assertThat(raw().call("GET", Q + key)).isEqualTo("x");
        }
        for (String seq : List.of("007", "+7", "-0", "9007199254740992")) {
            REDIS.flushAll();
            raw().call("SET", Q + "seq", seq);
            assertThatThrownBy(() -> chosen(queue, jobs(3), JobFields.NO_ARGS, true))
                    .isInstanceOf(RedisCommandException.class).hasMessageContaining(Q + "seq")
                    .hasMessageContaining("nothing was changed");   // the type guard's, or the id check's
            assertThat(raw().call("DBSIZE")).as("only the sequence %s", seq).isEqualTo(1L);
            assertThat(raw().call("GET", Q + "seq")).isEqualTo(seq);
        }
        REDIS.flushAll();
        raw().call("SET", Q + "seq", "41", "PX", "600000");
        chosen(queue, jobs(2), JobFields.NO_ARGS, true);
        assertThat(raw().call("GET", Q + "seq")).as("advanced by n, as INCRBY").isEqualTo("43");
        assertThat((Long) raw().call("PTTL", Q + "seq")).as("its expiry kept, as INCRBY keeps it").isPositive();
        REDIS.flushAll();
        raw().call("SET", Q + "layout", "zset");
        raw().call("SADD", Q + "retention", "x");
        chosen(queue, jobs(2), JobFields.NO_ARGS, true);   // a settings key of another type: no events, as the full form
        assertThat(raw().call("ZCARD", Q + "pending")).isEqualTo(2L);
    }

    @Test
    void enqueuedEventsAreWrittenPerJobAsTheFullFormWritesThem() {
        Queue f = client.queue("f");
        raw().call("HSET", Q + "retention", "events_enqueued", "1");
        raw().call("HSET", F + "retention", "events_enqueued", "1");
        List<JobRequest> bulk = jobs(5);
        chosen(queue, bulk, JobFields.NO_ARGS, true);
        full(f, bulk, JobFields.NO_ARGS);
        assertThat(events(Q)).isEqualTo(events(F)).containsExactly(
                "enqueued 1 0", "enqueued 2 0", "enqueued 3 0", "enqueued 4 0", "enqueued 5 0");
    }

    /** @return the events of a queue's stream as "name id attempt", oldest first */
    private List<String> events(String prefix) {
        List<String> out = new ArrayList<>();
        for (Object entry : (List<?>) raw().call("XRANGE", prefix + "events", "-", "+")) {
            List<String> f = strings(((List<?>) entry).get(1));
            out.add(f.get(1) + " " + f.get(3) + " " + f.get(5));
        }
        return out;
    }

    @Test
    @Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    void theWakeMessageIsTheFullFormsOnePerCallTheNumberOfJobs() {
        Queue f = client.queue("f");
        List<JobRequest> bulk = jobs(1001);
        chosen(queue, jobs(1), JobFields.NO_ARGS, true);   // loads the scripts outside the recording
        full(f, jobs(1), JobFields.NO_ARGS);
        try (CommandTap tap = raw().monitor()) {
            chosen(queue, bulk, JobFields.NO_ARGS, true, true);
            full(f, bulk, JobFields.NO_ARGS);
            assertThat(tap.awaitCommand(c -> c.size() == 3 && c.get(1).equals(F + "wake") && c.get(2).equals("1"),
                    Duration.ofSeconds(10))).isTrue();
            List<String> q = new ArrayList<>();
            List<String> fl = new ArrayList<>();
            for (List<String> c : tap.commands()) {
                if (c.get(0).equalsIgnoreCase("PUBLISH") || c.get(0).equalsIgnoreCase("SPUBLISH")) {
                    (c.get(1).startsWith(Q) ? q : fl).add(c.get(0).toUpperCase() + " " + c.get(1).substring(Q.length()) + " " + c.get(2));
                }
            }
            assertThat(q).isEqualTo(fl).containsExactly("PUBLISH wake 1000", "PUBLISH wake 1");
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
