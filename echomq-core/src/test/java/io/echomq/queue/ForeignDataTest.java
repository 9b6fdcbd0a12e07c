package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.RedisCommandException;
import io.echomq.internal.Scripts;
import io.echomq.server.CommandTap;
import io.echomq.testkit.Garbage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Data another client wrote into a queue's keys: generated junk job hashes, job keys of every
 * other type, ids that alias another job's keys, and the queue's own sets replaced by another
 * type. A running worker survives all of it, no good job is lost or run twice by its fault, each
 * junk entry ends dead (with a reason) or, when it happens to be a valid job, done, and the
 * queue's own keys are never corrupted.
 */
@Timeout(120)
class ForeignDataTest extends SemanticsTestBase {
    /** These tests read completed jobs' hashes: the test client keeps them for an hour. */
    @Override
    Duration retainCompleted() {
        return Duration.ofHours(1);
    }

    private static final String[] FIELDS = {"payload", "attempts", "spent", "max_attempts", "priority",
        "backoff_ms", "backoff_max_ms", "state", "score"};
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aWorkerSurvivesGeneratedJunkAndLosesNothing() {
        Garbage g = new Garbage(Garbage.seed());
        Map<String, Integer> handled = new ConcurrentHashMap<>();
        List<String> good = new ArrayList<>();
        Map<String, String> junk = new LinkedHashMap<>();   // id -> what was written, for messages
        try (Worker w = client.worker("q", job -> handled.merge(job.id(), 1, Integer::sum))
                .concurrency(4).lease(Duration.ofSeconds(10)).maintenanceInterval(Duration.ofMillis(50))
                .idlePoll(Duration.ofMillis(100)).start()) {
            for (int i = 0; i < 150; i++) {
                if (g.chance(0.4)) {
                    good.add(queue.enqueue("good-" + i));
                    continue;
                }
                String id = "f" + i;
                writeJunk(g, id, good, junk);
            }
            await().atMost(WAIT).until(() -> pendingCount() == 0 && card(ACTIVE) == 0 && card(DELAYED) == 0
                    && good.stream().allMatch(handled::containsKey));
            assertThat(w.isRunning()).as("the worker loop is alive").isTrue();
        }
        assertThat(good).allSatisfy(id -> {
            assertThat(handled.get(id)).as("runs of good job %s", id).isEqualTo(1);
            assertThat(field(id, "state")).isEqualTo("done");
        });
        Set<String> dead = Set.copyOf(members(DEAD));
        for (Map.Entry<String, String> e : junk.entrySet()) {
            String id = e.getKey();
            if (id.contains(":")) {
                assertThat(dead).as("aliasing id %s", id).contains(id);
                continue;
            }
            boolean done = handled.containsKey(id);
            assertThat(done || dead.contains(id)).as("junk %s (%s) ends done or dead", id, e.getValue()).isTrue();
        }
        assertThat(queue.dead(10_000)).allSatisfy(d -> assertThat(d.reason()).isNotBlank());
        @SuppressWarnings("unchecked")
        List<String> keys = (List<String>) raw().call("KEYS", "*");
        assertThat(keys).allSatisfy(k -> assertThat(k).matches("emq:\\{q}:.*|emq:lock:\\{queue:q:maintenance}:lock"));
    }

    /** Writes one generated piece of junk under {@code id} (or an alias) and queues it; records it in {@code junk}. */
    private void writeJunk(Garbage g, String id, List<String> good, Map<String, String> junk) {
        String key = jobKey(id);
        switch (g.between(0, 5)) {
            case 0, 1: {
                List<String> args = new ArrayList<>(List.of("HSET", key));
                for (String f : FIELDS) {
                    if (g.chance(0.5)) {
                        args.add(f);
                        args.add(g.oneOf(g.string(), Long.toString(g.around(0, 1, 3, 1000, -1)), "1.5", ""));
                    }
                }
                if (args.size() == 2) {
                    args.addAll(List.of("junk", "1"));
                }
                raw().call(args.toArray(String[]::new));
                queueSomewhere(g, id);
                junk.put(id, "hash " + args.subList(2, args.size()).stream().map(Garbage::show).toList());
                return;
            }
            case 2: {
                String type = g.oneOf("string", "list", "set", "zset");
                switch (type) {
                    case "string" -> raw().call("SET", key, "junk");
                    case "list" -> raw().call("RPUSH", key, "junk");
                    case "set" -> raw().call("SADD", key, "junk");
                    default -> raw().call("ZADD", key, "1", "junk");
                }
                queueSomewhere(g, id);
                junk.put(id, "a " + type);
                return;
            }
            case 3:
                queueSomewhere(g, id);
                junk.put(id, "no key at all");
                return;
            case 4: {
                // an id that names another job's lock subkey: must never be read, written or deleted
                String victim = good.isEmpty() ? "1" : good.get(g.between(0, good.size() - 1));
                String alias = victim + ":lock";
                raw().call("ZADD", g.chance(0.5) ? PENDING : DELAYED, "0", alias);
                junk.put(alias, "alias of " + victim);
                return;
            }
            default: {
                // a foreign lease, already expired: the reaper must deal with it
                raw().call("HSET", key, "payload", "p", "attempts", g.oneOf("1", "x", "99999999999999999999"),
                        "state", "active");
                raw().call("ZADD", ACTIVE, "1", id);
                junk.put(id, "an expired foreign lease");
                return;
            }
        }
    }

    private void queueSomewhere(Garbage g, String id) {
        raw().call("ZADD", g.chance(0.7) ? PENDING : DELAYED, Long.toString(g.between(-5, 5)), id);
    }

    @Test
    void anIdHoldingAColonNeverTouchesTheJobItAliases() {
        queue.setLayout(QueueLayout.ZSET);   // the layout whose claims write the lock subkey
        String victim = queue.enqueue("victim");
        Job held = queue.claim(LONG_LEASE).orElseThrow();
        String alias = victim + ":lock";
        raw().call("ZADD", PENDING, "0", alias);

        assertThat(queue.claim(LONG_LEASE)).as("the alias is not claimable").isEmpty();
        assertThat(members(DEAD)).containsExactly(alias);
        assertThat(queue.dead(10)).extracting(DeadJob::reason).containsExactly("job id contains ':'");
        assertThat(queue.redrive(100)).isZero();
        assertThat(queue.purgeDead(100)).isEqualTo(1);

        assertThat(raw().call("TYPE", lockKey(victim))).as("the victim's lock subkey survives").isEqualTo("string");
        assertThat(queue.remove(victim, false)).as("so remove still refuses").isEqualTo(RemoveOutcome.LOCKED);
        assertThat(held.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThatThrownBy(() -> queue.remove(alias, true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("':'");
    }

    @org.junit.jupiter.api.Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"active", "due", "dead", "stats"})
    void aQueueSetReplacedByAnotherTypeStopsClaimsWithoutLosingAJob(String which) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(queue.enqueue("job-" + i));
        }
        String key = "emq:{q}:" + which;
        raw().call("DEL", key);
        raw().call("SET", key, "junk");
        Set<String> handled = ConcurrentHashMap.newKeySet();
        try (CommandTap tap = raw().monitor();
             Worker w = client.worker("q", job -> handled.add(job.id())).concurrency(2).start()) {
            String claim = Scripts.CLAIM.sha();
            await().atMost(WAIT).until(() -> tap.commands().stream()
                    .filter(c -> c.size() > 1 && c.get(0).equalsIgnoreCase("EVALSHA") && c.get(1).equals(claim))
                    .count() >= 2);
            assertThat(w.isRunning()).isTrue();
            assertThat(handled).isEmpty();
            assertThat(pendingIds()).as("refused claims took nothing").containsExactlyElementsOf(ids);
            // a never-claimed job's hash is {payload} alone (state pending and attempts 0 are the defaults)
            assertThat(ids).allSatisfy(id -> {
                assertThat(queue.inspect(id).orElseThrow().state()).isEqualTo("pending");
                assertThat(queue.inspect(id).orElseThrow().attempts()).isZero();
            });

            raw().call("DEL", key);   // an operator repairs the key; the same worker carries on
            await().atMost(WAIT).until(() -> handled.size() == ids.size() && card(ACTIVE) == 0);
        }
        assertThat(handled).containsExactlyInAnyOrderElementsOf(ids);
    }

    /**
     * The claim checks only the keys it will touch: a claim of ready jobs never touches
     * the sequence, so a sequence of another type stops only the promotion that would use it,
     * which refuses with WRONGTYPE and changes nothing.
     */
    @Test
    void aSequenceOfAnotherTypeStopsPromotionAndNotTheClaimOfReadyJobs() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(queue.enqueue("job-" + i));
        }
        String seq = P + "seq";
        raw().call("SET", seq, "junk");
        Set<String> handled = ConcurrentHashMap.newKeySet();
        try (Worker w = client.worker("q", job -> handled.add(job.id())).concurrency(2)
                .idlePoll(Duration.ofMillis(100)).start()) {
            await().atMost(WAIT).until(() -> handled.size() == ids.size() && card(ACTIVE) == 0);
            assertThat(handled).containsExactlyInAnyOrderElementsOf(ids);

            // a due delayed job now needs the sequence for its place in pending
            raw().call("HSET", jobKey("d1"), "payload", "later");
            raw().call("ZADD", DELAYED, "0", "d1");
            assertThatThrownBy(() -> queue.promote(10)).isInstanceOf(RedisCommandException.class)
                    .hasRootCauseMessage("WRONGTYPE emq:{q}:seq is not an integer; nothing was changed");
            assertThat(members(DELAYED)).as("the refused promotion moved nothing").containsExactly("d1");
            assertThat(card(PENDING)).isZero();
            assertThat(raw().call("GET", seq)).isEqualTo("junk");
            assertThat(handled).doesNotContain("d1");

            raw().call("DEL", seq);   // an operator repairs the key; the same worker carries on
            await().atMost(WAIT).until(() -> handled.contains("d1") && card(ACTIVE) == 0);
        }
        assertThat(field("d1", "state")).isEqualTo("done");
    }

    @Test
    void aWaitKeyOfAnotherTypeIsRefusedByEveryScriptBeforeAnyWrite() {
        EnqueueOptions high = EnqueueOptions.defaults().withPriority(5);
        String held = queue.enqueue("held".getBytes(java.nio.charset.StandardCharsets.UTF_8), high).id();
        String waiting = queue.enqueue("waiting".getBytes(java.nio.charset.StandardCharsets.UTF_8), high).id();
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(job.id()).isEqualTo(held);
        raw().call("SET", WAIT_LIST, "junk");
        String refusal = "WRONGTYPE emq:{q}:wait holds a string, not a list; nothing was changed";

        assertThatThrownBy(() -> queue.enqueue("c")).isInstanceOf(RedisCommandException.class)
                .hasRootCauseMessage(refusal);
        assertThatThrownBy(() -> queue.claim(LONG_LEASE)).isInstanceOf(RedisCommandException.class)
                .hasRootCauseMessage(refusal);
        // with no expired lease, a reap touches neither pending nor wait, so it checks neither
        // (docs/protocol.md, "Refusing keys of another type"): it moves nothing and says so
        ReapResult idle = queue.reap(10);
        assertThat(idle.returned() + idle.dead()).isZero();
        assertThatThrownBy(() -> queue.remove(waiting, false)).isInstanceOf(RedisCommandException.class)
                .hasRootCauseMessage(refusal);
        assertThatThrownBy(() -> queue.redrive(10)).isInstanceOf(RedisCommandException.class)
                .hasRootCauseMessage(refusal);
        assertThatThrownBy(job::returnLease).isInstanceOf(RedisCommandException.class)
                .hasRootCauseMessage(refusal);
        assertThatThrownBy(queue::stats).isInstanceOf(RedisCommandException.class)
                .hasMessageContaining("WRONGTYPE");

        assertThat(get(P + "seq")).as("the refused enqueue spent no id").isEqualTo("2");
        assertThat(members(PENDING)).as("the refused claim and remove took nothing").containsExactly(waiting);
        assertThat(members(ACTIVE)).as("the refused return left the lease alone").containsExactly(held);
        assertThat(get(WAIT_LIST)).isEqualTo("junk");

        raw().call("DEL", WAIT_LIST);   // an operator repairs the key; the same handles carry on
        assertThat(job.returnLease()).isEqualTo(SettleOutcome.RETURNED);
        assertThat(queue.claim(2, LONG_LEASE)).extracting(Job::id).containsExactly(held, waiting);
    }

    @Test
    void theScriptsAnswerWrongTypeBeforeAnyWrite() {
        String id = queue.enqueue("a");
        raw().call("DEL", ACTIVE);
        raw().call("SET", ACTIVE, "junk");
        assertThatThrownBy(() -> queue.claim(LONG_LEASE)).isInstanceOf(RedisCommandException.class)
                .hasMessageContaining("WRONGTYPE");
        raw().call("DEL", PENDING);
        raw().call("SET", PENDING, "junk");
        assertThatThrownBy(() -> queue.enqueue("b")).isInstanceOf(RedisCommandException.class)
                .hasRootCauseMessage("WRONGTYPE emq:{q}:pending holds a string, not a zset; nothing was changed");
        assertThat(queue.inspect(id).orElseThrow().state()).isEqualTo("pending");
        assertThat(queue.inspect(id).orElseThrow().attempts()).isZero();
        @SuppressWarnings("unchecked")
        List<String> keys = (List<String>) raw().call("KEYS", "emq:{q}:job:*");
        assertThat(keys).as("the refused enqueue wrote no hash").isEmpty();
        assertThat((Long) raw().call("HLEN", P + "pb:0")).as("nor a bucket field: the first job's alone")
                .isEqualTo(1L);
        assertThat(queue.dead(10).stream().map(DeadJob::id).collect(Collectors.toList())).isEmpty();
    }
}
