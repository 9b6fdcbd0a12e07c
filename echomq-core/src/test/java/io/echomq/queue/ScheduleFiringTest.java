package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Firing recurring schedules against a real Redis: exactly one job per fire time with several
 * schedulers at once, the missed-fire policies, an upsert racing the firing, a worker's
 * maintenance firing its queue's schedules, and a sharded queue's schedules.
 */
class ScheduleFiringTest extends QueueTestBase {

    /** @return fire time (epoch ms) → payloads of the jobs fired for it, read from the jobs' idempotency keys */
    private Map<Long, List<String>> fired(String prefix, String scheduleId) {
        Map<Long, List<String>> out = new TreeMap<>();
        Object seq = raw().call("GET", prefix + "seq");
        long n = seq == null ? 0 : Long.parseLong(seq.toString());
        for (long i = 1; i <= n; i++) {
            Object idem = raw().call("HGET", prefix + "job:" + i, "idem");
            String key = idem == null ? null : idem.toString();
            String head = "schedule:" + scheduleId + ":";
            if (key != null && key.startsWith(head)) {
                Object payload = raw().call("HGET", prefix + "job:" + i, "payload");
                out.computeIfAbsent(Long.parseLong(key.substring(head.length())), k -> new ArrayList<>())
                        .add(payload.toString());
            }
        }
        return out;
    }

    private static void assertOncePerStep(Map<Long, List<String>> fired, long stepMs) {
        List<Long> times = new ArrayList<>(fired.keySet());
        for (Map.Entry<Long, List<String>> e : fired.entrySet()) {
            assertThat(e.getValue()).as("jobs of fire time %d", e.getKey()).hasSize(1);
        }
        for (int i = 1; i < times.size(); i++) {
            assertThat(times.get(i) - times.get(i - 1)).as("no fire time lost before %d", times.get(i)).isEqualTo(stepMs);
        }
    }

    @Test
    void threeSchedulersFireEachFireTimeExactlyOnce() {
        client.schedules("q").upsert(Schedule.of("beat", ScheduleSpec.every(Duration.ofMillis(200)), "b"));
        List<Scheduler> schedulers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            schedulers.add(client(b -> { }).scheduler(Duration.ofMillis(50), "q"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> fired("emq:{q}:", "beat").size() >= 8);
        schedulers.get(0).close();   // one stops mid-run; the other two go on
        int before = fired("emq:{q}:", "beat").size();
        await().atMost(Duration.ofSeconds(10)).until(() -> fired("emq:{q}:", "beat").size() >= before + 8);
        schedulers.forEach(Scheduler::close);

        Map<Long, List<String>> fired = fired("emq:{q}:", "beat");
        assertOncePerStep(fired, 200);
        assertThat(queue.stats().pending()).isEqualTo(fired.size());
        // a scheduler closed mid-run may have created a job whose count it never saw
        assertThat(schedulers.stream().mapToLong(Scheduler::created).sum()).isLessThanOrEqualTo(fired.size())
                .isPositive();
    }

    @Test
    void missedFireTimesFollowEachSchedulesPolicy() {
        Schedules s = client.schedules("q");
        Duration minute = Duration.ofMinutes(1);
        s.upsert(Schedule.of("skip", ScheduleSpec.every(minute), "s"));
        s.upsert(Schedule.of("once", ScheduleSpec.every(minute), "o").withMissed(MissedFires.ONCE));
        s.upsert(Schedule.of("all", ScheduleSpec.every(minute), "a").withMissed(MissedFires.ALL).withMaxMissed(3));
        // a downtime: each schedule's next fire time is ten minutes ago
        long now = Long.parseLong(((List<?>) raw().call("TIME")).get(0).toString()) * 1000;
        long past = (now / 60_000 - 10) * 60_000;
        for (String id : List.of("skip", "once", "all")) {
            raw().call("ZADD", "emq:{q}:schedules", Long.toString(past), id);
        }
        s.fireDue();
        long cutoff = now - Schedules.MISSED_AFTER.toMillis() - 1000;   // a second of slack for the server's own now

        assertThat(fired("emq:{q}:", "skip").keySet()).allMatch(t -> t >= cutoff).hasSizeBetween(1, 2);
        assertThat(fired("emq:{q}:", "once").keySet().stream().filter(t -> t < cutoff)).containsExactly(past);
        assertThat(fired("emq:{q}:", "all").keySet().stream().filter(t -> t < cutoff))
                .containsExactly(past, past + 60_000, past + 120_000);
        for (ScheduleInfo info : s.list()) {
            assertThat(info.nextFire().orElseThrow().toEpochMilli()).as(info.schedule().id()).isGreaterThan(now - 1000);
        }
        int jobs = (int) queue.stats().pending();
        assertThat(s.fireDue()).as("a second run finds nothing due").isZero();
        assertThat(queue.stats().pending()).isEqualTo(jobs);
    }

    @Test
    void anUpsertRacingTheFiringNeitherDoublesNorLosesAFireTimeNorLetsTheOldDefinitionLive() throws Exception {
        Schedules s = client.schedules("q");
        s.upsert(Schedule.of("race", ScheduleSpec.every(Duration.ofMillis(100)), "v0"));
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<Thread> firers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Schedules mine = client(b -> { }).schedules("q");
            Thread t = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        mine.fireDue();
                    } catch (RuntimeException e) {
                        errors.add(e);
                    }
                }
            });
            t.start();
            firers.add(t);
        }
        // payload-only upserts (same timing: the next fire time is kept) while three firers fire
        for (int i = 1; i <= 30; i++) {
            s.upsert(Schedule.of("race", ScheduleSpec.every(Duration.ofMillis(100)), "v" + i));
            Thread.sleep(20);
        }
        Map<Long, List<String>> sameTiming = fired("emq:{q}:", "race");
        long lastPayloadUpsert = Long.parseLong(raw().call("HGET", "emq:{q}:schedule:race", "updated_at").toString());
        // then a timing change: from here on only multiples of 300 ms may fire
        s.upsert(Schedule.of("race", ScheduleSpec.every(Duration.ofMillis(300)), "slow"));
        long timingUpsert = Long.parseLong(raw().call("HGET", "emq:{q}:schedule:race", "updated_at").toString());
        await().atMost(Duration.ofSeconds(10)).until(() -> fired("emq:{q}:", "race").keySet().stream()
                .filter(t -> t > timingUpsert).count() >= 5);
        stop.set(true);
        for (Thread t : firers) {
            t.join(10_000);
        }
        assertThat(errors).isEmpty();

        Map<Long, List<String>> all = fired("emq:{q}:", "race");
        all.values().forEach(p -> assertThat(p).hasSize(1));
        assertThat(sameTiming.size()).isGreaterThan(5);
        assertOncePerStep(sameTiming, 100);
        for (Map.Entry<Long, List<String>> e : all.entrySet()) {
            if (e.getKey() > lastPayloadUpsert && e.getKey() <= timingUpsert) {
                // v30, or the new timing's first fire time when it fell within the timing upsert's own round trip
                boolean newTiming = e.getValue().equals(List.of("slow")) && e.getKey() % 300 == 0;
                assertThat(newTiming || e.getValue().equals(List.of("v30")))
                        .as("fire time %d, after the last payload upsert: %s", e.getKey(), e.getValue()).isTrue();
            }
            if (e.getKey() > timingUpsert) {
                assertThat(e.getKey() % 300).as("fire time %d, after the timing upsert", e.getKey()).isZero();
                assertThat(e.getValue()).containsExactly("slow");
            }
        }
        List<Long> slow = all.keySet().stream().filter(t -> t > timingUpsert).toList();
        for (int i = 1; i < slow.size(); i++) {
            assertThat(slow.get(i) - slow.get(i - 1)).isEqualTo(300);
        }
    }

    @Test
    void aWorkersMaintenanceFiresItsQueuesSchedules() {
        client.schedules("q").upsert(Schedule.of("w", ScheduleSpec.every(Duration.ofMillis(200)), "from-maintenance"));
        List<String> handled = new CopyOnWriteArrayList<>();
        try (Worker ignored = client.worker("q", job -> handled.add(job.payloadUtf8()))
                .maintenanceInterval(Duration.ofMillis(100)).start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() >= 5);
        }
        assertThat(handled).allMatch("from-maintenance"::equals);
        assertOncePerStep(fired("emq:{q}:", "w"), 200);
    }

    @Test
    void aShardedQueuesSchedulesLiveAndFireInPartitionZero() {
        ShardedQueue sharded = client.shardedQueue("orders", 3);
        Schedules s = client.schedules("orders");
        s.upsert(Schedule.of("o", ScheduleSpec.every(Duration.ofMinutes(1)), "order"));
        raw().call("ZADD", "emq:{orders#0}:schedules", "1000", "o");   // long due; skip keeps the on-time one only
        assertThat(s.fireDue()).isEqualTo(1);
        assertThat(sharded.stats().pending()).isEqualTo(1);
        assertThat(sharded.partitionStats().get(0).pending()).isEqualTo(1);
        assertThat(sharded.claim(Duration.ofSeconds(5)).orElseThrow().id()).startsWith("0-");
    }

    @Test
    void aScheduleThisProcessCannotReadIsSkippedAndTheOthersFire() {
        // a cron schedule written by a process with echomq-cron; this test's class path has no cron parser
        raw().call("HSET", "emq:{q}:schedule:c", "spec", "cron:* * * * *", "zone", "UTC", "payload", "c",
                "missed", "skip", "max_missed", "10", "priority", "0", "max_attempts", "0", "version", "1");
        raw().call("ZADD", "emq:{q}:schedules", "1000", "c");
        Schedules s = client.schedules("q");
        s.upsert(Schedule.of("e", ScheduleSpec.every(Duration.ofMinutes(1)), "e"));
        raw().call("ZADD", "emq:{q}:schedules", "2000", "e");
        assertThat(s.fireDue()).isEqualTo(1);
        assertThat(s.fireDue()).isZero();
        assertThat(raw().call("ZSCORE", "emq:{q}:schedules", "c").toString()).isEqualTo("1000");   // left due for others
        assertThat(fired("emq:{q}:", "e")).hasSize(1);
        assertThat(s.list()).extracting(i -> i.schedule().id()).containsExactly("e");
    }
}
