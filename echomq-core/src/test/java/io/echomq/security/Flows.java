package io.echomq.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.AcquireOptions;
import io.echomq.lock.FencedWriteOutcome;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.ReleaseOutcome;
import io.echomq.lock.RenewOutcome;
import io.echomq.queue.SettleOutcome;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.JobResult;
import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueLayout;
import io.echomq.queue.QueueClient;
import io.echomq.queue.RemoveOutcome;
import io.echomq.queue.Worker;
import io.echomq.server.RawRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Every command path of the library, run end to end: the lock (fenced and plain acquire, waiting
 * with its release notification, renew, release by handle and by token, inspect, the watchdog's
 * pipelined renewals, the guarded store, server feature detection) and the queue (enqueue in all
 * its forms, claim, extend, progress, complete, fail, return, reap, stats, dead, redrive, purge,
 * remove, inspect) and a worker (wake-ups, maintenance lock, promotion of a delayed job). Used to
 * prove that an ACL line, a password or TLS leaves every path working.
 */
final class Flows {
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration LEASE = Duration.ofSeconds(10);

    private Flows() {
    }

    /**
     * Runs every lock path on {@code locks}, starting with feature detection ({@code INFO server},
     * {@code COMMAND INFO}), which must name {@code server} as the server itself does.
     *
     * @param server the product and version the server reports, for example {@code "Valkey 8.0.1"}
     */
    static void locks(LockClient locks, String server) throws Exception {
        assertThat(locks.serverDescription()).startsWith(server + " (SPUBLISH: ");

        Lease fenced = locks.tryAcquire("sec-lock", TTL).orElseThrow();
        assertThat(locks.tryAcquire("sec-lock", TTL)).isEmpty();
        assertThat(locks.inspect("sec-lock").holderToken()).contains(fenced.token());
        assertThat(fenced.renew(TTL)).isEqualTo(RenewOutcome.RENEWED);
        assertThat(locks.renew("sec-lock", fenced.token(), TTL)).isEqualTo(RenewOutcome.RENEWED);
        assertThat(locks.fencedStore().write("emq:guarded:sec", fenced.fence(), "v1"))
                .isEqualTo(FencedWriteOutcome.WRITTEN);
        assertThat(locks.fencedStore().read("emq:guarded:sec")).isPresent();

        // a waiter subscribes to the release channel and is woken by the release script's PUBLISH
        CompletableFuture<Lease> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return locks.acquire("sec-lock", TTL, Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> !waiter.isDone());
        assertThat(fenced.release()).isEqualTo(ReleaseOutcome.RELEASED);
        Lease next = waiter.get(20, TimeUnit.SECONDS);
        assertThat(next.fence()).isGreaterThan(fenced.fence());
        assertThat(locks.release("sec-lock", fenced.token())).isEqualTo(ReleaseOutcome.NOT_OWNER);
        assertThat(locks.release("sec-lock", next.token())).isEqualTo(ReleaseOutcome.RELEASED);

        Lease plain = locks.tryAcquire("sec-plain", TTL, AcquireOptions.defaults().plain()).orElseThrow();
        assertThat(plain.release()).isEqualTo(ReleaseOutcome.RELEASED);

        // the watchdog renews on its own pipelined connection: the lock outlives its first ttl
        Lease watched = locks.tryAcquire("sec-watched", Duration.ofMillis(1500),
                AcquireOptions.defaults().withWatchdog()).orElseThrow();
        await().during(Duration.ofMillis(2000)).atMost(Duration.ofSeconds(10))
                .until(() -> locks.inspect("sec-watched").holderToken().equals(Optional.of(watched.token())));
        assertThat(watched.release()).as("renewed by the watchdog").isEqualTo(ReleaseOutcome.RELEASED);
    }

    /** Runs every queue and worker path on {@code client}, which must name {@code server} as {@link #locks} does. */
    static void queues(QueueClient client, String server) throws Exception {
        assertThat(client.serverDescription()).startsWith(server + " (SPUBLISH: ");
        Queue q = client.queue("sec");
        String a = q.enqueue("a");
        assertThat(q.enqueue("b".getBytes(), EnqueueOptions.defaults().withPriority(5).withMaxAttempts(2)
                .withIdempotencyKey("k-1", Duration.ofMinutes(1))).created()).isTrue();
        q.enqueueAll(List.of(JobRequest.of("c"), JobRequest.of("d")));

        Job first = q.claim(LEASE).orElseThrow();
        assertThat(first.extend(LEASE)).isTrue();
        assertThat(first.progress("50%")).isTrue();
        assertThat(first.complete()).isEqualTo(SettleOutcome.COMPLETED);
        List<Job> more = q.claim(3, LEASE);
        assertThat(more).hasSize(3);
        assertThat(more.get(0).failWithoutRetry("sec test")).isEqualTo(SettleOutcome.DEAD);
        assertThat(more.get(1).fail("retry me")).isEqualTo(SettleOutcome.RETRYING);
        assertThat(more.get(2).returnLease()).isEqualTo(SettleOutcome.RETURNED);
        assertThat(q.dead(10)).hasSize(1);
        assertThat(q.redrive(10)).isEqualTo(1);
        assertThat(q.reap(10).returned()).isZero();
        assertThat(q.inspect(a)).isPresent();
        String doomed = q.enqueue("doomed".getBytes(), EnqueueOptions.defaults().withDelay(Duration.ofHours(1))).id();
        assertThat(q.remove(doomed, false)).isEqualTo(RemoveOutcome.REMOVED);
        String unwanted = q.enqueue("unwanted");   // priority 0: removed from the wait LIST (LREM)
        assertThat(q.remove(unwanted, false)).isEqualTo(RemoveOutcome.REMOVED);
        Job toKill = q.claim(LEASE).orElseThrow();
        assertThat(toKill.failWithoutRetry("to purge")).isEqualTo(SettleOutcome.DEAD);
        assertThat(q.purgeDead(10)).isEqualTo(1);
        assertThat(q.stats().dead()).isZero();

        // a result (the events stream's XADD), and awaitResult: answered from the hash, then a wait
        // on the stream that times out (XREVRANGE, XREAD, XRANGE)
        Job resulting = q.claim(LEASE).orElseThrow();
        assertThat(resulting.result("r".getBytes())).isTrue();
        assertThat(resulting.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(q.awaitResult(resulting.id(), Duration.ZERO).resultText()).isEqualTo("r");
        String later = q.enqueue("later".getBytes(), EnqueueOptions.defaults().withDelay(Duration.ofHours(1))).id();
        assertThat(q.awaitResult(later, Duration.ofMillis(50)).outcome()).isEqualTo(JobResult.Outcome.TIMED_OUT);
        assertThat(q.remove(later, false)).isEqualTo(RemoveOutcome.REMOVED);

        // the ZSET layout: the switch moves the waiting ids to the pending ZSET at fresh seqs (INCRBY)
        Queue z = client.queue("sec-z");
        String waiting = z.enqueue("waits");
        z.setLayout(QueueLayout.ZSET);
        assertThat(z.claim(LEASE).orElseThrow().id()).isEqualTo(waiting);

        // a worker: wake-ups on the queue's channel, the maintenance lock, promotion of a due job
        Set<String> done = ConcurrentHashMap.newKeySet();
        List<String> ids = new ArrayList<>();
        try (Worker w = client.worker("sec", job -> done.add(job.id())).concurrency(2)
                .maintenanceInterval(Duration.ofMillis(100)).idlePoll(Duration.ofSeconds(30)).start()) {
            await().atMost(Duration.ofSeconds(20)).until(w::isIdle);
            for (int i = 0; i < 10; i++) {
                ids.add(q.enqueue("w-" + i));
            }
            ids.add(q.enqueue("late".getBytes(), EnqueueOptions.defaults().withDelay(Duration.ofMillis(200))).id());
            await().atMost(Duration.ofSeconds(20)).until(() -> done.containsAll(ids) && q.stats().drained());
            assertThat(w.isRunning()).isTrue();
        }
    }

    /**
     * Runs the paths {@link #queues} leaves out, so that with it every queue script runs: fair
     * groups (grouped enqueue, claim, pause and resume of a group, counts), flow control (rate limit
     * and concurrency cap, read by the claim), pause and resume of the queue, cancel of a pending and
     * of a running job, an explicit promote, a page of a state's list, schedules (upsert, a due fire, remove), a sharded
     * queue (its partition count), the directory of queues, and the delete of a queue.
     */
    /**
     * The first call of this release on queues whose delayed jobs the previous protocol kept in
     * {@code emq:{q}:delayed} (written here by {@code admin}, as a protocol-1 client would): one
     * queue's set is renamed to {@code emq:{q}:due}, the other's is merged into a {@code due} that
     * exists already. Both are then marked, and no delayed job was lost.
     */
    static void previousProtocolQueues(QueueClient client, RawRedis admin) throws Exception {
        String far = String.valueOf(System.currentTimeMillis() + 3_600_000L);
        admin.call("HSET", "emq:{sec-m1}:job:1", "payload", "later", "attempts", "0", "spent", "0");
        admin.call("ZADD", "emq:{sec-m1}:delayed", far, "1");
        admin.call("SET", "emq:{sec-m1}:seq", "1");
        assertThat(client.queue("sec-m1").claim(LEASE)).as("the delayed job is not due").isEmpty();
        assertThat(admin.call("TYPE", "emq:{sec-m1}:due")).isEqualTo("zset");
        assertThat(admin.call("GET", "emq:{sec-m1}:delayed")).isEqualTo("2");

        admin.call("HSET", "emq:{sec-m2}:job:1", "payload", "later", "attempts", "0", "spent", "0");
        admin.call("HSET", "emq:{sec-m2}:job:2", "payload", "later", "attempts", "0", "spent", "0");
        admin.call("ZADD", "emq:{sec-m2}:delayed", far, "1");
        admin.call("ZADD", "emq:{sec-m2}:due", far, "2");
        admin.call("SET", "emq:{sec-m2}:seq", "2");
        assertThat(client.queue("sec-m2").claim(LEASE)).as("no delayed job is due").isEmpty();
        assertThat(admin.call("ZCARD", "emq:{sec-m2}:due")).as("both delayed jobs kept").isEqualTo(2L);
        assertThat(admin.call("GET", "emq:{sec-m2}:delayed")).isEqualTo("2");
    }

    static void controls(QueueClient client) throws Exception {
        Queue g = client.queue("sec-g");
        g.groups().setMax(1);
        assertThat(g.groups().max()).isEqualTo(1);
        g.enqueue("g1", EnqueueOptions.defaults().withGroup("tenant-a"));
        g.enqueue("g2", EnqueueOptions.defaults().withGroup("tenant-a"));
        assertThat(g.groups().pause("tenant-a")).isTrue();
        assertThat(g.claim(LEASE)).isEmpty();
        assertThat(g.groups().resume("tenant-a")).isTrue();
        assertThat(g.groups().count("tenant-a")).isNotNull();
        // every phase of the listing: the waiting and active counts (HSCAN), then the paused set (SSCAN)
        io.echomq.queue.GroupPage page = g.groups().list(null, 10);
        for (int pages = 1; page.nextCursor().isPresent(); pages++) {
            assertThat(pages).as("pages of a one-group listing").isLessThan(10);
            page = g.groups().list(page.nextCursor().get(), 10);
        }
        Job grouped = g.claim(LEASE).orElseThrow();
        assertThat(g.claim(LEASE)).as("one active job per group").isEmpty();
        assertThat(grouped.complete()).isEqualTo(SettleOutcome.COMPLETED);

        Queue f = client.queue("sec-f");
        f.flowControl().setRateLimit(100, Duration.ofSeconds(1));
        f.flowControl().setConcurrencyCap(5);
        f.enqueue("limited");
        Job limited = f.claim(LEASE).orElseThrow();
        assertThat(limited.complete()).isEqualTo(SettleOutcome.COMPLETED);
        assertThat(f.flowControl().clearRateLimit()).isTrue();
        assertThat(f.flowControl().clearConcurrencyCap()).isTrue();

        Queue c = client.queue("sec-c");
        assertThat(c.pause()).isTrue();
        assertThat(c.isPaused()).isTrue();
        assertThat(c.resume()).isTrue();
        String pendingId = c.enqueue("cancel me");
        assertThat(c.cancel(pendingId)).isNotNull();
        c.enqueue("running");
        Job running = c.claim(LEASE).orElseThrow();
        assertThat(c.cancel(running.id())).isNotNull();
        assertThat(c.promote(10)).as("nothing delayed is due").isZero();
        // pages after a cursor: in the wait LIST (LPOS) and in a ZSET (ZRANK)
        Queue l = client.queue("sec-l");
        for (int i = 0; i < 3; i++) {
            l.enqueue("listed-" + i);
            l.enqueue(("later-" + i).getBytes(), EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        }
        for (io.echomq.queue.JobState state : List.of(io.echomq.queue.JobState.PENDING, io.echomq.queue.JobState.DELAYED)) {
            io.echomq.queue.JobPage first = l.list(state, 1, null);
            assertThat(first.jobs()).hasSize(1);
            assertThat(l.list(state, 1, first.next().orElseThrow()).jobs()).as("the page after the cursor").hasSize(1);
        }

        io.echomq.queue.Schedules schedules = client.schedules("sec-s");
        schedules.upsert(io.echomq.queue.Schedule.of("every-second",
                io.echomq.queue.ScheduleSpec.every(Duration.ofMillis(100)), "tick"));
        await().atMost(Duration.ofSeconds(10)).until(() -> schedules.fireDue() > 0);
        assertThat(schedules.remove("every-second")).isTrue();

        io.echomq.queue.ShardedQueue sharded = client.shardedQueue("sec-p", 2);
        sharded.enqueue("p", "x".getBytes(), EnqueueOptions.defaults());
        assertThat(sharded.refresh()).isEqualTo(2);

        assertThat(io.echomq.queue.QueueDirectory.of(client).names()).contains("sec-c");
        assertThat(c.delete(true).deleted()).isTrue();
    }

    /**
     * Runs the lock paths {@link #locks} leaves out: the directory of held locks, and a Redlock
     * client over {@code masters}, whose fenced acquire raises the masters' fences.
     */
    static void lockExtras(LockClient locks, List<String> masters) throws Exception {
        Lease held = locks.tryAcquire("sec-listed", TTL).orElseThrow();
        assertThat(io.echomq.lock.LockDirectory.of(locks).held("sec-", 10).locks()).isNotEmpty();
        io.echomq.lock.LockDirectory.Page page = io.echomq.lock.LockDirectory.of(locks)
                .page("sec-", "", 10, java.time.Duration.ofSeconds(5));
        java.util.List<String> found = new java.util.ArrayList<>();
        page.locks().forEach(l -> found.add(l.resource()));
        while (page.next() != null) {
            page = io.echomq.lock.LockDirectory.of(locks).page("sec-", page.next(), 10, java.time.Duration.ofSeconds(5));
            page.locks().forEach(l -> found.add(l.resource()));
        }
        assertThat(found).contains("sec-listed");
        assertThat(held.release()).isEqualTo(ReleaseOutcome.RELEASED);
        Lease stuck = locks.tryAcquire("sec-takeover", TTL).orElseThrow();
        Lease taken = locks.takeover("sec-takeover", stuck.token().substring(0, io.echomq.lock.LockClient.MIN_TAKEOVER_PREFIX),
                stuck.fence(), TTL).orElseThrow();
        assertThat(taken.fence()).isGreaterThan(stuck.fence());
        assertThat(taken.release()).isEqualTo(ReleaseOutcome.RELEASED);
        try (io.echomq.lock.RedlockClient redlock = io.echomq.lock.RedlockClient.create(masters)) {
            Lease r = redlock.tryAcquire("sec-redlock", TTL, AcquireOptions.defaults()).orElseThrow();
            assertThat(redlock.release("sec-redlock", r.token())).isEqualTo(ReleaseOutcome.RELEASED);
        }
    }
}
