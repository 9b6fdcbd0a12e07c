package io.echomq.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.internal.LuaScript;
import io.echomq.internal.Scripts;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueLayout;
import io.echomq.server.CommandTap;
import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * No script stops halfway on a key of the wrong type. For each step (one call of the library, on a
 * state its setup builds) the keys the step writes are found by running it once; then, for each of
 * those keys in turn, the state is built again with that key replaced by a value of another type,
 * and the step must either succeed or fail with the keyspace exactly as it was before the call.
 * Every script of the resources that writes must be run by some step (found under {@code MONITOR}),
 * or be named below as writing at most one key.
 */
@org.junit.jupiter.api.Tag("standalone-only")   // MONITOR and KEYS see one server
@Timeout(600)
class WrongTypeBeforeWriteTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final Duration LEASE = Duration.ofMinutes(1);

    /** Scripts that read only, or write at most one key, so that they cannot stop between two writes. */
    private static final Map<String, String> ONE_KEY_OR_NONE = Map.of(
            "lock/inspect-2.lua", "reads only",
            "queue/list-2.lua", "reads only",
            "queue/stats-6.lua", "reads only",
            "queue/schedule-due-1.lua", "reads, and drops a malformed schedule: one key",
            "lock/fenced-write-1.lua", "writes the one guarded key",
            "lock/fence-raise-1.lua", "writes the one fence key",
            "queue/partitions-1.lua", "writes the one partitions key",
            "client/permissions-1.lua", "writes only its probe key, deleted in the same call");

    /**
     * Scripts that write several keys but that no step runs yet, because only a worker's or a
     * scheduler's timing reaches them: each is named here so that a new script cannot go unseen.
     */
    private static final Map<String, String> NOT_RUN_BY_A_STEP = Map.of(
            "lock/handoff-2.lua", "a release while an acquire of the same client waits",
            "lock/wait-acquire-3.lua", "a refused try of a waiting acquire",
            "queue/heartbeat-2.lua", "a worker's heartbeat",
            "queue/throughput-2.lua", "a worker's maintenance, once per server minute",
            "queue/schedule-advance-1.lua", "a scheduler's fire");

    /** One call of the library and the state it runs on. */
    private record Step(String name, Action setup, Action action) {
    }

    @FunctionalInterface
    private interface Action {
        void run(Ctx c) throws Exception;
    }

    /** The clients of one run and what a setup hands to its action. */
    private record Ctx(QueueClient queues, LockClient locks, Queue q, Map<String, Object> vars) {
        Job job() {
            return (Job) vars.get("job");
        }
    }

    private static Step step(String name, Action setup, Action action) {
        return new Step(name, setup, action);
    }

    private static final Action NONE = c -> { };

    private static List<Step> steps() {
        EnqueueOptions grouped = EnqueueOptions.defaults().withGroup("ga");
        Action pending = c -> c.vars().put("id", c.q().enqueue("a"));
        Action claimed = c -> {
            c.q().enqueue("a");
            c.vars().put("job", c.q().claim(LEASE).orElseThrow());
        };
        Action claimedGrouped = c -> {
            c.q().enqueue("a", grouped);
            c.q().enqueue("b", grouped);
            c.vars().put("job", c.q().claim(LEASE).orElseThrow());
        };
        Action dead = c -> {
            claimed.run(c);
            c.job().failWithoutRetry("x");
        };
        return List.of(
                step("enqueue", NONE, c -> c.q().enqueue("x")),
                step("enqueue grouped", NONE, c -> c.q().enqueue("x", grouped)),
                step("enqueue grouped behind another", c -> c.q().enqueue("y", grouped), c -> c.q().enqueue("x", grouped)),
                step("enqueue delayed", NONE, c -> c.q().enqueue("x".getBytes(), EnqueueOptions.defaults().withDelay(Duration.ofHours(1)))),
                step("enqueue priority idempotent", NONE, c -> c.q().enqueue("x".getBytes(),
                        EnqueueOptions.defaults().withPriority(3).withIdempotencyKey("k", Duration.ofMinutes(1)))),
                step("enqueue compact", NONE, c -> c.q().enqueueAll(List.of(JobRequest.of("x"), JobRequest.of("y")))),
                step("claim", pending, c -> c.q().claim(LEASE)),
                step("claim grouped", c -> c.q().enqueue("a", grouped), c -> c.q().claim(LEASE)),
                step("complete", claimed, c -> c.job().complete()),
                step("complete grouped", claimedGrouped, c -> c.job().complete()),
                step("fail to retry", claimed, c -> c.job().fail("x")),
                step("fail grouped to dead", claimedGrouped, c -> c.job().failWithoutRetry("x")),
                step("return", claimed, c -> c.job().returnLease()),
                step("return grouped", claimedGrouped, c -> c.job().returnLease()),
                step("extend", claimed, c -> c.job().extend(LEASE)),
                step("progress", claimed, c -> c.job().progress("p")),
                step("result", claimed, c -> c.job().result("r".getBytes())),
                step("remove pending", pending, c -> c.q().remove((String) c.vars().get("id"), false)),
                step("remove grouped", c -> c.vars().put("id", c.q().enqueue("a", grouped).id()),
                        c -> c.q().remove((String) c.vars().get("id"), false)),
                step("reap", c -> {
                    c.q().enqueue("a");
                    Job j = c.q().claim(Duration.ofMillis(20)).orElseThrow();
                    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                            (Long) REDIS.raw().call("PTTL", "emq:{t}:job:" + j.id() + ":lock") == -2L);
                }, c -> c.q().reap(10)),
                step("redrive", dead, c -> c.q().redrive(10)),
                step("purge", dead, c -> c.q().purgeDead(10)),
                step("promote", c -> c.q().enqueue("x".getBytes(), EnqueueOptions.defaults()
                        .withRunAt(java.time.Instant.now().minusSeconds(60)).withPriority(2)), c -> c.q().promote(10)),
                step("cancel pending", pending, c -> c.q().cancel((String) c.vars().get("id"))),
                step("cancel running", claimed, c -> c.q().cancel(c.job().id())),
                step("pause", pending, c -> c.q().pause()),
                step("resume", c -> {
                    pending.run(c);
                    c.q().pause();
                }, c -> c.q().resume()),
                step("pause a group", c -> c.q().enqueue("a", grouped), c -> c.q().groups().pause("ga")),
                step("resume a group", c -> {
                    c.q().enqueue("a", grouped);
                    c.q().groups().pause("ga");
                }, c -> c.q().groups().resume("ga")),
                step("layout to zset", pending, c -> c.q().setLayout(QueueLayout.ZSET)),
                step("schedule upsert", NONE, c -> c.queues().schedules("t").upsert(io.echomq.queue.Schedule.of("s",
                        io.echomq.queue.ScheduleSpec.every(Duration.ofHours(1)), "x"))),
                step("schedule remove", c -> c.queues().schedules("t").upsert(io.echomq.queue.Schedule.of("s",
                        io.echomq.queue.ScheduleSpec.every(Duration.ofHours(1)), "x")), c -> c.queues().schedules("t").remove("s")),
                step("delete queue", claimed, c -> c.q().delete(true)),
                step("acquire", NONE, c -> c.locks().tryAcquire("r", LEASE)),
                step("release", c -> c.vars().put("lease", c.locks().tryAcquire("r", LEASE).orElseThrow()),
                        c -> ((Lease) c.vars().get("lease")).release()),
                step("renew", c -> c.vars().put("lease", c.locks().tryAcquire("r", LEASE).orElseThrow()),
                        c -> ((Lease) c.vars().get("lease")).renew(LEASE)),
                step("takeover", c -> c.vars().put("lease", c.locks().tryAcquire("r", LEASE).orElseThrow()),
                        c -> {
                            Lease held = (Lease) c.vars().get("lease");
                            c.locks().takeover("r", held.token().substring(0, LockClient.MIN_TAKEOVER_PREFIX), held.fence(),
                                    LEASE);
                        }));
    }

    @Test
    void noStepStopsBetweenTwoWritesOnAKeyOfTheWrongType() throws Exception {
        RawRedis admin = REDIS.raw();
        List<String> problems = new ArrayList<>();
        int tried = 0;
        for (Step s : steps()) {
            Map<String, String> before = new TreeMap<>();
            Map<String, String> after = new TreeMap<>();
            run(s, before, after, null);
            Set<String> written = new TreeSet<>(before.keySet());
            written.addAll(after.keySet());
            written.removeIf(k -> java.util.Objects.equals(before.get(k), after.get(k)));
            for (String key : written) {
                String type = (after.containsKey(key) ? after : before).get(key).split(" ", 2)[0];
                Map<String, String> corrupt = new TreeMap<>();
                Map<String, String> end = new TreeMap<>();
                Exception failed = run(s, corrupt, end, c -> {
                    admin.call("DEL", key);
                    if (type.equals("string")) {
                        admin.call("HSET", key, "junk", "1");
                    } else {
                        admin.call("SET", key, "junk");
                    }
                });
                tried++;
                if (failed != null && !corrupt.equals(end) && !takenFreshId(key, before, diffKeys(corrupt, end))) {
                    problems.add(s.name() + ", " + key + " not a " + type + ": failed (" + failed.getMessage()
                            + ") after writing " + diff(corrupt, end));
                }
            }
        }
        assertThat(tried).as("keys replaced").isGreaterThan(50);
        assertThat(problems).isEmpty();
    }

    @Test
    void everyScriptThatWritesTwoKeysIsRunByAStep() throws Exception {
        Map<String, String> bySha = new HashMap<>();
        for (LuaScript s : Scripts.all()) {
            bySha.put(s.sha(), s.path());
        }
        Set<String> ran = new TreeSet<>();
        try (CommandTap tap = REDIS.raw().monitor()) {
            for (Step s : steps()) {
                run(s, new TreeMap<>(), new TreeMap<>(), null);
            }
            REDIS.raw().call("ECHO", "steps-done");
            assertThat(tap.awaitCommand(c -> c.equals(List.of("ECHO", "steps-done")), Duration.ofSeconds(10))).isTrue();
            for (List<String> c : tap.commands()) {
                if (c.get(0).equalsIgnoreCase("evalsha")) {
                    ran.add(bySha.getOrDefault(c.get(1), c.get(1)));
                }
            }
        }
        Set<String> uncovered = new TreeSet<>(ScriptResources.scripts());
        uncovered.removeAll(ran);
        uncovered.removeAll(ONE_KEY_OR_NONE.keySet());
        uncovered.removeAll(NOT_RUN_BY_A_STEP.keySet());
        assertThat(ran).as("a script named as not run by a step is run by one: move it").doesNotContainAnyElementsOf(
                NOT_RUN_BY_A_STEP.keySet());
        assertThat(uncovered).as("scripts no step runs").isEmpty();
    }

    /**
     * Builds the step's state on an empty server with fresh clients, applies {@code corrupt}, takes
     * {@code before}, runs the action and takes {@code after}.
     *
     * @return the action's failure, or null
     */
    private static Exception run(Step s, Map<String, String> before, Map<String, String> after, Action corrupt)
            throws Exception {
        REDIS.flushAll();
        try (QueueClient queues = QueueClient.create(REDIS.url()); LockClient locks = LockClient.create(REDIS.url())) {
            Ctx c = new Ctx(queues, locks, queues.queue("t"), new HashMap<>());
            s.setup().run(c);
            if (corrupt != null) {
                corrupt.run(c);
            }
            before.putAll(Keyspace.snapshot(REDIS.raw()));
            Exception failed = null;
            try {
                s.action().run(c);
            } catch (RuntimeException e) {
                if (corrupt == null) {
                    throw new AssertionError(s.name() + " failed on a sound state", e);
                }
                failed = e;
            }
            after.putAll(Keyspace.snapshot(REDIS.raw()));
            return failed;
        }
    }

    /**
     * The one write a refused call may keep: a key of another type at a fresh job id (written by
     * someone else where no job was) fails the enqueue's HSET after the INCR of {@code seq}, and
     * nothing else. The id is spent, so the next enqueue goes past the foreign key instead of
     * failing on it for ever; proving every fresh id's key first would cost the per-job enqueue a
     * command per job. The compact enqueue proves its n fresh keys with one EXISTS before its
     * first write, and so keeps the same one write. The queue's protocol mark ({@code emq:{q}:delayed},
     * {@code 2}) may be written with that {@code seq}: a queue whose sequence exists is marked.
     */
    private static boolean takenFreshId(String key, Map<String, String> sound, Set<String> written) {
        if (!key.matches("emq:\\{t}:job:\\d+") || sound.containsKey(key)) {
            return false;
        }
        Set<String> rest = new TreeSet<>(written);
        rest.remove("emq:{t}:seq");
        rest.remove("emq:{t}:delayed");   // the queue's protocol mark, which goes with its seq
        return rest.isEmpty();
    }

    private static Set<String> diffKeys(Map<String, String> a, Map<String, String> b) {
        Set<String> keys = new TreeSet<>(a.keySet());
        keys.addAll(b.keySet());
        keys.removeIf(k -> java.util.Objects.equals(a.get(k), b.get(k)));
        return keys;
    }

    private static String diff(Map<String, String> a, Map<String, String> b) {
        Set<String> keys = new TreeSet<>(a.keySet());
        keys.addAll(b.keySet());
        keys.removeIf(k -> java.util.Objects.equals(a.get(k), b.get(k)));
        StringBuilder out = new StringBuilder();
        for (String k : keys) {
            out.append(k).append(": ").append(a.get(k)).append(" -> ").append(b.get(k)).append("; ");
        }
        return out.toString();
    }
}
