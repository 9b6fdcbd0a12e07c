package io.echomq.cli;

import io.echomq.RedisCommandException;
import io.echomq.dashboard.CrashGapRun;
import io.echomq.dashboard.RaceRun;
import io.echomq.dashboard.SafetyActs;
import io.echomq.dashboard.SafetyFigures;
import io.echomq.lock.AcquireOptions;
import io.echomq.lock.FencedStore;
import io.echomq.lock.FencedValue;
import io.echomq.lock.FencedWriteOutcome;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.ReleaseOutcome;
import io.echomq.lock.RenewOutcome;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The seed's scenarios, replayed on a real server, each judged from what Redis answered.
 *
 * <ol>
 *   <li>Four workers issue {@code SET … NX PX} at once: one OK, the rest nil.</li>
 *   <li>SETNX then EXPIRE with a crash in the gap: no expiry, a deadlock; SET NX PX always has one.</li>
 *   <li>A blind DEL after expiry deletes the next holder's lock; the token-checked release does not.</li>
 *   <li>PX without NX lets two holders in.</li>
 *   <li>A stale holder's fenced write is refused, and its lease is never revived.</li>
 *   <li>The claim lease ({@link ClaimLeaseAct}): 1,000 jobs, four workers, one killed mid-job; every
 *       job is completed exactly once, and the killed worker's stale completion is refused.</li>
 * </ol>
 *
 * <p>Acts 1 and 2 are the dashboard's {@link SafetyActs}, which answer their replies as records
 * ({@link RaceRun}, {@link CrashGapRun}): this class prints and judges them, and
 * {@link #figures()} draws them as the dashboard's "Why it is safe" page does.
 *
 * <p>Lock keys live under the namespace {@value #NAMESPACE}, and so do the raw keys of the
 * hazards, which are sent with a plain Lettuce connection, not through the lock API. The queue of
 * act 6 lives under {@code emq:{demo-jobs}:}. Every key is deleted before the acts (the queue's
 * just before act 6) and again by {@link #close()}, unless the demo was opened to keep them
 * ({@code emq demo --keep}, for a look with {@code emq dashboard}).
 */
final class DemoScenarios implements AutoCloseable {
    /** The prefix of every key of acts 1-5; act 6's queue keys are under {@link ClaimLeaseAct#PREFIX}. */
    static final String NAMESPACE = "emq:demo:";

    private static final Duration HOLD = Duration.ofSeconds(30);
    private static final Duration SHORT = Duration.ofMillis(200);
    private static final AcquireOptions PLAIN = AcquireOptions.defaults().plain();
    private static final String PX_ONLY_KEY = NAMESPACE + "px-only:lock";
    private static final String FENCED_DATA_KEY = NAMESPACE + "{fenced}:data";

    /** The verdict of one act. */
    record ActResult(int number, String title, boolean passed) {
    }

    private final LockClient locks;
    private final RedisClient rawClient;
    private final StatefulRedisConnection<String, String> rawConnection;
    private final RedisCommands<String, String> raw;
    private final DemoConsole console;
    private final List<String> keys;
    private final String url;
    private final boolean keep;
    private final SafetyActs acts;
    private RaceRun race;
    private CrashGapRun crashGap;

    private DemoScenarios(LockClient locks, String url, RedisClient rawClient,
                          StatefulRedisConnection<String, String> conn, SafetyActs acts, DemoConsole console,
                          boolean keep) {
        this.locks = locks;
        this.url = url;
        this.keep = keep;
        this.rawClient = rawClient;
        this.rawConnection = conn;
        this.raw = conn.sync();
        this.console = console;
        this.acts = acts;
        List<String> all = new ArrayList<>(acts.keys());
        all.addAll(List.of(locks.lockKey("blind"), locks.lockKey("fenced"), locks.fenceKey("fenced"), PX_ONLY_KEY,
                FENCED_DATA_KEY));
        this.keys = List.copyOf(all);
    }

    /**
     * Opens the raw connection the hazards are sent on.
     *
     * @param locks a lock client whose namespace is {@value #NAMESPACE}
     * @param url the same server's URL, already checked
     * @param keep whether {@link #close()} leaves the demo's keys in place
     * @throws RedisCommandException if the server cannot be reached
     */
    static DemoScenarios open(LockClient locks, String url, DemoConsole console, boolean keep) {
        RedisClient client = RedisClient.create(url);
        StatefulRedisConnection<String, String> connection;
        try {
            connection = client.connect();
        } catch (RuntimeException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw new RedisCommandException("CONNECT (demo raw connection)", null, e);
        }
        SafetyActs acts;
        try {
            acts = SafetyActs.open(url, NAMESPACE);
        } catch (RuntimeException e) {
            connection.close();
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
        return new DemoScenarios(locks, url, client, connection, acts, console, keep);
    }

    /** Deletes leftovers of an earlier run, then runs the six acts in order. */
    List<ActResult> runAll() throws InterruptedException {
        raw.del(keys.toArray(String[]::new));
        List<ActResult> results = new ArrayList<>();
        results.add(new ActResult(1, "four workers race, exactly one wins", fourWorkers()));
        results.add(new ActResult(2, "SETNX+EXPIRE crash deadlocks; SET NX PX never does", setnxThenExpire()));
        results.add(new ActResult(3, "blind DEL hits the next holder; token release does not", blindDelete()));
        results.add(new ActResult(4, "PX without NX lets two holders in", pxWithoutNx()));
        results.add(new ActResult(5, "stale fenced write refused; lost lease never revived", staleFencedWrite()));
        results.add(new ActResult(6, "claim lease: a crash loses no job; a stale finish is refused",
                new ClaimLeaseAct(url, rawConnection, console).run()));
        return results;
    }

    // ------------------------------------------------------------------------------ act 1

    private boolean fourWorkers() throws InterruptedException {
        console.act(1, "Four workers issue the acquire at once",
                "exactly one finds the absent key and writes; the rest find it present and get nil.");
        RaceRun run = acts.race();
        race = run;
        for (RaceRun.Reply r : run.replies()) {
            console.command(r.worker(), "SET " + run.key() + " <" + r.worker() + "'s token> NX PX " + run.holdMillis(),
                    r.shown());
        }
        String winner = run.replies().stream().filter(RaceRun.Reply::acquired).map(RaceRun.Reply::worker).findFirst()
                .orElse(null);
        console.command("", "GET " + run.key(), quote(run.stored()) + (run.storedIsWinners() ? " = " + winner
                + "'s token" : " ≠ the token of the worker that got OK"));
        console.verdict("Holders of the lock: " + run.holders());
        console.verdict("Double-acquired: " + (run.holders() > 1 ? "yes" : "no"));
        return run.holders() == 1 && run.storedIsWinners();
    }

    // ------------------------------------------------------------------------------ act 2

    private boolean setnxThenExpire() {
        console.act(2, "SETNX then EXPIRE, with a crash in the gap",
                "a crash between the two leaves a lock with no expiry: a deadlock; SET … NX PX rules it out.");
        CrashGapRun run = acts.crashGap();
        crashGap = run;
        long ttl = run.ttlAfterCrash();
        console.command("A", "SETNX " + run.setnxKey() + " <A's token>", run.firstSetnx() ? "1 (set)" : "0 (not set)");
        console.note("A", "crashes: its connection closes; EXPIRE " + run.setnxKey() + " 30 is never sent");
        console.command("B", "TTL " + run.setnxKey(), ttl + (ttl == -1 ? " (no expiry)" : ""));
        console.command("B", "SETNX " + run.setnxKey() + " <B's token>", run.secondSetnx() ? "1 (set)" : "0 (not set)");
        console.verdict("SETNX then EXPIRE, crash in the gap → " + (ttl == -1 ? "the lock has no expiry"
                : "TTL " + ttl) + "; the next SETNX " + (run.secondSetnx() ? "succeeded" : "fails, and will forever")
                + (run.deadlock() ? ": deadlock" : ""));
        console.command("C", "SET " + run.atomicKey() + " <C's token> NX PX " + run.holdMillis(),
                run.atomicReply() == null ? "nil" : run.atomicReply());
        console.command("C", "PTTL " + run.atomicKey(), Long.toString(run.atomicPttl()));
        console.verdict("SET … NX PX, one command → " + (run.atomicHasExpiry() ? "the lock has an expiry ("
                + run.atomicPttl() + " ms left): no deadlock" : "no expiry (PTTL " + run.atomicPttl() + ")"));
        return run.deadlock() && run.atomicHasExpiry();
    }

    /**
     * @return the figures of acts 1 and 2 as the dashboard draws them, from this run's replies; ""
     *     before {@link #runAll()}
     */
    String figures() {
        return (race == null ? "" : SafetyFigures.race(race)) + (crashGap == null ? "" : SafetyFigures.crashGap(crashGap));
    }

    // ------------------------------------------------------------------------------ act 3

    private boolean blindDelete() throws InterruptedException {
        console.act(3, "A blind DEL after expiry deletes the next holder's lock",
                "a release must delete the lock only while its token still matches.");
        String key = locks.lockKey("blind");
        Handover first = handover("blind", key);
        long deleted = raw.del(key);
        console.command("A", "DEL " + key + "   (blind: no token check)", Long.toString(deleted));
        String afterDel = raw.get(key);
        console.command("B", "GET " + key, quote(afterDel) + (afterDel == null
                ? "  B's lock is gone, yet B believes it holds it" : ""));
        boolean hazard = first.complete() && deleted == 1 && afterDel == null;
        console.verdict("Blind DEL → deleted B's lock: " + (hazard ? "yes" : "no"));

        console.line("  Replay, releasing with the token check (lease.release(), release-3.lua):");
        Handover second = handover("blind", key);
        ReleaseOutcome released = second.a() == null ? null : second.a().release();
        console.command("A", "EVALSHA release-3 (DEL only if GET = A's token)", String.valueOf(released));
        String afterRelease = raw.get(key);
        boolean intact = second.b() != null && second.b().token().equals(afterRelease);
        console.command("B", "GET " + key, quote(afterRelease) + (intact ? " = B's token: intact" : ""));
        console.verdict("Token-checked release → " + released + ", B's lock intact: " + (intact ? "yes" : "no"));
        return hazard && second.complete() && released == ReleaseOutcome.NOT_OWNER && intact;
    }

    /** Two plain leases on one resource, A's expired before B's was granted; null where nil. */
    private record Handover(Lease a, Lease b) {
        boolean complete() {
            return a != null && b != null;
        }
    }

    /** A acquires for a short ttl and pauses past it; then B acquires. */
    private Handover handover(String resource, String key) throws InterruptedException {
        long aStart = System.nanoTime();
        Lease a = locks.tryAcquire(resource, SHORT, PLAIN).orElse(null);
        console.command("A", "SET " + key + " <A's token> NX PX " + SHORT.toMillis(), a != null ? "OK" : "nil");
        console.note("A", expiryNote("pauses", awaitExpiry(key, aStart)));
        Lease b = locks.tryAcquire(resource, HOLD, PLAIN).orElse(null);
        console.command("B", "SET " + key + " <B's token> NX PX " + HOLD.toMillis(), b != null ? "OK" : "nil");
        return new Handover(a, b);
    }

    // ------------------------------------------------------------------------------ act 4

    private boolean pxWithoutNx() {
        console.act(4, "PX without NX lets two holders in",
                "without NX a plain SET overwrites a held lock, and two clients both proceed as the owner.");
        String t1 = token();
        String t2 = token();
        String r1 = raw.set(PX_ONLY_KEY, t1, SetArgs.Builder.px(HOLD.toMillis()));
        console.command("C1", "SET " + PX_ONLY_KEY + " <C1's token> PX " + HOLD.toMillis(), String.valueOf(r1));
        String r2 = raw.set(PX_ONLY_KEY, t2, SetArgs.Builder.px(HOLD.toMillis()));
        console.command("C2", "SET " + PX_ONLY_KEY + " <C2's token> PX " + HOLD.toMillis(), String.valueOf(r2));
        String stored = raw.get(PX_ONLY_KEY);
        boolean overwritten = t2.equals(stored);
        console.command("", "GET " + PX_ONLY_KEY, quote(stored) + (overwritten
                ? " = C2's token: C2 overwrote C1, who still believes it holds the lock" : ""));
        int believers = ("OK".equals(r1) ? 1 : 0) + ("OK".equals(r2) ? 1 : 0);
        console.verdict("PX without NX → clients that got OK and believe they hold the lock: " + believers
                + (believers > 1 ? " (two holders)" : ""));
        String r3 = raw.set(PX_ONLY_KEY, token(), SetArgs.Builder.nx().px(HOLD.toMillis()));
        console.command("C3", "SET " + PX_ONLY_KEY + " <C3's token> NX PX " + HOLD.toMillis(), r3 == null ? "nil" : r3);
        console.verdict("With NX → the held lock is refused: " + (r3 == null ? "yes (nil)" : "no"));
        return believers == 2 && overwritten && r3 == null;
    }

    // ------------------------------------------------------------------------------ act 5

    private boolean staleFencedWrite() throws InterruptedException {
        console.act(5, "A stale holder's fenced write is refused after the lease moved on",
                "the fence rises with every grant; a store that remembers it refuses an older holder.");
        String key = locks.lockKey("fenced");
        String fenceKey = locks.fenceKey("fenced");
        String acquire = "acquire-2: SET " + key + " <%s> NX PX %d, SET " + fenceKey + " max(last+1, TIME in µs)";
        long aStart = System.nanoTime();
        Lease a = locks.tryAcquire("fenced", SHORT).orElse(null);
        console.command("A", String.format(acquire, "A's token", SHORT.toMillis()), a == null ? "nil" : "OK fence=" + a.fence());
        console.note("A", expiryNote("pauses (think: a GC pause)", awaitExpiry(key, aStart)));
        Lease b = locks.tryAcquire("fenced", HOLD).orElse(null);
        console.command("B", String.format(acquire, "B's token", HOLD.toMillis()), b == null ? "nil" : "OK fence=" + b.fence());
        if (a == null || b == null) {
            console.verdict("Could not stage the scenario: an acquire answered nil");
            return false;
        }
        FencedStore store = locks.fencedStore();
        FencedWriteOutcome bWrite = store.write(FENCED_DATA_KEY, b.fence(), "written by B");
        console.command("B", "fenced-write-1 " + FENCED_DATA_KEY + " fence=" + b.fence() + " \"written by B\"",
                bWrite.toString());
        FencedWriteOutcome aWrite = store.write(FENCED_DATA_KEY, a.fence(), "written by A");
        console.command("A", "fenced-write-1 " + FENCED_DATA_KEY + " fence=" + a.fence() + " \"written by A\"",
                aWrite + (aWrite == FencedWriteOutcome.STALE ? " (refused)" : ""));
        Optional<FencedValue> kept = store.read(FENCED_DATA_KEY);
        console.command("", "HMGET " + FENCED_DATA_KEY + " value fence",
                kept.map(v -> quote(v.value()) + " " + v.fence()).orElse("(nil)"));
        RenewOutcome renewed = locks.renew("fenced", a.token(), HOLD);
        console.command("A", "EVALSHA renew-2 (PEXPIRE " + HOLD.toMillis() + " only if GET = A's token)",
                renewed.toString());
        boolean fencesGrow = b.fence() > a.fence();
        boolean keptB = kept.isPresent() && kept.get().value().equals("written by B") && kept.get().fence() == b.fence();
        boolean notRevived = renewed != RenewOutcome.RENEWED && b.token().equals(raw.get(key));
        console.verdict("Stale holder's write (fence " + a.fence() + ", after B's " + b.fence() + ") → " + aWrite
                + "; the store kept B's value: " + (keptB ? "yes" : "no"));
        console.verdict("A's renew → " + renewed + "; the lost lease was revived: " + (notRevived ? "no" : "yes"));
        return fencesGrow && bWrite == FencedWriteOutcome.WRITTEN && aWrite == FencedWriteOutcome.STALE && keptB
                && notRevived;
    }

    // ------------------------------------------------------------------------------ helpers

    /**
     * Polls the key's PTTL until the server has expired it, sleeping no longer than it has left.
     *
     * @param start when the acquire was sent, on {@link System#nanoTime()}
     * @return the milliseconds since {@code start}, or -1 if the key was still there 5 seconds
     *     after its ttl
     */
    private long awaitExpiry(String key, long start) throws InterruptedException {
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(SHORT.toMillis() + 5_000);
        while (System.nanoTime() < deadline) {
            long pttl = raw.pttl(key);
            if (pttl == -2) {
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            }
            Thread.sleep(Math.max(1, Math.min(pttl, 20)));
        }
        return -1;
    }

    private static String expiryNote(String pauses, long waitedMillis) {
        return waitedMillis < 0 ? pauses + ", but its lock did not expire in time"
                : pauses + " past its ttl: " + waitedMillis + " ms after the acquire the server has expired it"
                        + " (PTTL → -2)";
    }

    private static String token() {
        return UUID.randomUUID().toString();
    }

    static String quote(String value) {
        return value == null ? "(nil)" : '"' + value + '"';
    }

    /** Deletes every demo key, the queue's included, unless told to keep them; closes the raw connection. */
    @Override
    public void close() {
        try {
            if (keep) {
                console.line("");
                console.line("Kept (--keep): the demo's " + raw.exists(keys.toArray(String[]::new)) + " keys left under "
                        + NAMESPACE + ", and the queue " + ClaimLeaseAct.QUEUE + " (" + ClaimLeaseAct.PREFIX
                        + "…) with its jobs.");
                return;
            }
            long deleted = raw.del(keys.toArray(String[]::new));
            console.line("");
            console.line("Cleanup: DEL of the demo's " + keys.size() + " keys under " + NAMESPACE + " → " + deleted);
            long queueKeys = ClaimLeaseAct.deleteKeys(raw);
            console.line("Cleanup: DEL of the demo queue's keys (SCAN MATCH " + ClaimLeaseAct.PREFIX
                    + "*) and its maintenance lock → " + queueKeys);
        } catch (RuntimeException e) {
            console.line("Cleanup failed, keys under " + NAMESPACE + " and " + ClaimLeaseAct.PREFIX + " may remain: "
                    + e.getMessage());
        } finally {
            acts.close();
            rawConnection.close();
            rawClient.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
