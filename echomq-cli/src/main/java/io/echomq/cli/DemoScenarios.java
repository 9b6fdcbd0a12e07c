package io.echomq.cli;

import io.echomq.RedisCommandException;
import io.echomq.dashboard.BlindDeleteRun;
import io.echomq.dashboard.ClaimLeaseAct;
import io.echomq.dashboard.ClaimLeaseRun;
import io.echomq.dashboard.CrashGapRun;
import io.echomq.dashboard.FencedWriteRun;
import io.echomq.dashboard.PxOnlyRun;
import io.echomq.dashboard.RaceRun;
import io.echomq.dashboard.SafetyActs;
import io.echomq.dashboard.SafetyFigures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
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
 * <p>Acts 1 to 5 are the dashboard's {@link SafetyActs}, which answer their replies as records
 * ({@link RaceRun}, {@link CrashGapRun}, {@link BlindDeleteRun}, {@link PxOnlyRun},
 * {@link FencedWriteRun}): this class prints and judges them, and
 * {@link #figures()} draws them as the dashboard's "Why it is safe" page does.
 *
 * <p>Lock keys live under the namespace {@value #NAMESPACE}, and so do the raw keys of the
 * hazards, which are sent with a plain Lettuce connection, not through the lock API. The queue of
 * act 6 lives under {@code emq:{demo-jobs}:}. Every key is deleted before the acts (the queue's
 * just before act 6) and again by {@link #close()}, unless the demo was opened to keep them
 * ({@code emq demo --keep}, for a look with {@code emq dashboard}).
 */
final class DemoScenarios implements AutoCloseable {
    /** The prefix of every key of acts 1-5; act 6's queue keys are under {@link #QUEUE_PREFIX}. */
    static final String NAMESPACE = "emq:demo:";
    /** The prefix of every key of act 6's queue. */
    static final String QUEUE_PREFIX = "emq:{" + ClaimLeaseAct.DEMO_QUEUE + "}:";   // ClaimLeaseAct.prefixOf, as a constant for the help text


    /** The verdict of one act. */
    record ActResult(int number, String title, boolean passed) {
    }

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
    private BlindDeleteRun blind;
    private PxOnlyRun pxOnly;
    private FencedWriteRun fenced;
    private final ClaimLeaseAct claimLease;
    private ClaimLeaseRun claim;

    private DemoScenarios(String url, RedisClient rawClient,
                          StatefulRedisConnection<String, String> conn, SafetyActs acts, ClaimLeaseAct claimLease,
                          DemoConsole console, boolean keep) {
        this.claimLease = claimLease;
        this.url = url;
        this.keep = keep;
        this.rawClient = rawClient;
        this.rawConnection = conn;
        this.raw = conn.sync();
        this.console = console;
        this.acts = acts;
        this.keys = acts.keys();
    }

    /**
     * Opens the raw connection act 6 reads with, and the lock acts ({@link SafetyActs}) under
     * {@value #NAMESPACE}.
     *
     * @param url the same server's URL, already checked
     * @param keep whether {@link #close()} leaves the demo's keys in place
     * @throws RedisCommandException if the server cannot be reached
     */
    static DemoScenarios open(String url, DemoConsole console, boolean keep) {
        RedisClient client = RedisClient.create(url);
        StatefulRedisConnection<String, String> connection;
        try {
            connection = client.connect();
        } catch (RuntimeException e) {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw new RedisCommandException("CONNECT (demo raw connection)", null, e);
        }
        SafetyActs acts;
        ClaimLeaseAct claimLease;
        try {
            acts = SafetyActs.open(url, NAMESPACE);
        } catch (RuntimeException e) {
            connection.close();
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
        try {
            claimLease = ClaimLeaseAct.open(url, ClaimLeaseAct.DEMO_QUEUE, console);
        } catch (RuntimeException e) {
            acts.close();
            connection.close();
            client.shutdown(0, 2, TimeUnit.SECONDS);
            throw e;
        }
        return new DemoScenarios(url, client, connection, acts, claimLease, console, keep);
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
        console.act(6, "The claim lease: a job queue that no crash can lose and no stale worker can finish",
                "@claim pops the oldest pending id (LPOP of emq:{q}:wait here: priority 0) and leases it into "
                        + "emq:{q}:active scored now + lease_ms; a later reap returns any expired score to pending.");
        claim = claimLease.run();
        results.add(new ActResult(6, "claim lease: a crash loses no job; a stale finish is refused", claim.passed()));
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
     * @return the figures of acts 1 to 6 as the dashboard draws them, from this run's replies; an
     *     act not run yet has none
     */
    String figures() {
        return (race == null ? "" : "<h2>Act 1 · The race</h2>" + SafetyFigures.race(race))
                + (crashGap == null ? "" : "<h2>Act 2 · The crash gap</h2>" + SafetyFigures.crashGap(crashGap))
                + (blind == null ? "" : "<h2>Act 3 · Blind DEL against the token release</h2>"
                        + SafetyFigures.blindDelete(blind))
                + (pxOnly == null ? "" : "<h2>Act 4 · PX without NX</h2>" + SafetyFigures.pxWithoutNx(pxOnly))
                + (fenced == null ? "" : "<h2>Act 5 · The stale fenced write</h2>" + SafetyFigures.staleFencedWrite(fenced))
                + (claim == null ? "" : "<h2>Act 6 · The claim lease</h2>" + SafetyFigures.claimLease(claim));
    }

    // ------------------------------------------------------------------------------ act 3

    private boolean blindDelete() throws InterruptedException {
        console.act(3, "A blind DEL after expiry deletes the next holder's lock",
                "a release must delete the lock only while its token still matches.");
        BlindDeleteRun run = acts.blindDelete();
        blind = run;
        String key = run.key();
        handover(key, run.firstGrants());
        console.command("A", "DEL " + key + "   (blind: no token check)", Long.toString(run.deleted()));
        console.command("B", "GET " + key, quote(run.afterDelete()) + (run.afterDelete() == null
                ? "  B's lock is gone, yet B believes it holds it" : ""));
        console.verdict("Blind DEL → deleted B's lock: " + (run.hazard() ? "yes" : "no"));

        console.line("  Replay, releasing with the token check (lease.release(), release-3.lua):");
        handover(key, run.secondGrants());
        console.command("A", "EVALSHA release-3 (DEL only if GET = A's token)", String.valueOf(run.release()));
        console.command("B", "GET " + key, quote(run.afterRelease()) + (run.intact() ? " = B's token: intact" : ""));
        console.verdict("Token-checked release → " + run.release() + ", B's lock intact: " + (run.intact() ? "yes" : "no"));
        return run.hazard() && run.secondGrants() && "NOT_OWNER".equals(run.release()) && run.intact();
    }

    /** Prints A's short acquire, its pause past the ttl, and B's acquire. */
    private void handover(String key, boolean granted) {
        console.command("A", "SET " + key + " <A's token> NX PX " + SafetyActs.SHORT.toMillis(), granted ? "OK" : "?");
        console.note("A", "pauses past its ttl, until the server has expired its lock (PTTL → -2)");
        console.command("B", "SET " + key + " <B's token> NX PX " + SafetyActs.HOLD.toMillis(), granted ? "OK"
                : "? (one of the two acquires answered nil)");
    }

    // ------------------------------------------------------------------------------ act 4

    private boolean pxWithoutNx() {
        console.act(4, "PX without NX lets two holders in",
                "without NX a plain SET overwrites a held lock, and two clients both proceed as the owner.");
        PxOnlyRun run = acts.pxWithoutNx();
        pxOnly = run;
        String key = run.key();
        console.command("C1", "SET " + key + " <C1's token> PX " + run.holdMillis(), String.valueOf(run.firstReply()));
        console.command("C2", "SET " + key + " <C2's token> PX " + run.holdMillis(), String.valueOf(run.secondReply()));
        console.command("", "GET " + key, quote(run.stored()) + (run.overwritten()
                ? " = C2's token: C2 overwrote C1, who still believes it holds the lock" : ""));
        console.verdict("PX without NX → clients that got OK and believe they hold the lock: " + run.believers()
                + (run.believers() > 1 ? " (two holders)" : ""));
        console.command("C3", "SET " + key + " <C3's token> NX PX " + run.holdMillis(),
                run.nxReply() == null ? "nil" : run.nxReply());
        console.verdict("With NX → the held lock is refused: " + (run.nxRefused() ? "yes (nil)" : "no"));
        return run.believers() == 2 && run.overwritten() && run.nxRefused();
    }

    // ------------------------------------------------------------------------------ act 5

    private boolean staleFencedWrite() throws InterruptedException {
        console.act(5, "A stale holder's fenced write is refused after the lease moved on",
                "the fence rises with every grant; a store that remembers it refuses an older holder.");
        FencedWriteRun run = acts.staleFencedWrite();
        fenced = run;
        String acquire = "acquire-2: SET " + run.lockKey() + " <%s> NX PX %d, SET " + run.fenceKey()
                + " max(last+1, TIME in µs)";
        console.command("A", String.format(acquire, "A's token", SafetyActs.SHORT.toMillis()), run.aFence() == 0 ? "nil"
                : "OK fence=" + run.aFence());
        console.note("A", "pauses (think: a GC pause) past its ttl, until the server has expired its lock (PTTL → -2)");
        console.command("B", String.format(acquire, "B's token", SafetyActs.HOLD.toMillis()), run.bFence() == 0 ? "nil"
                : "OK fence=" + run.bFence());
        if (run.aFence() == 0 || run.bFence() == 0) {
            console.verdict("Could not stage the scenario: an acquire answered nil");
            return false;
        }
        console.command("B", "fenced-write-1 " + run.key() + " fence=" + run.bFence() + " \"" + FencedWriteRun.B_VALUE
                + "\"", run.bWrite());
        console.command("A", "fenced-write-1 " + run.key() + " fence=" + run.aFence() + " \"written by A\"",
                run.aWrite() + ("STALE".equals(run.aWrite()) ? " (refused)" : ""));
        console.command("", "HMGET " + run.key() + " value fence", run.keptValue() == null ? "(nil)"
                : quote(run.keptValue()) + " " + run.keptFence());
        console.command("A", "EVALSHA renew-2 (PEXPIRE " + SafetyActs.HOLD.toMillis() + " only if GET = A's token)",
                run.renew());
        console.verdict("Stale holder's write (fence " + run.aFence() + ", after B's " + run.bFence() + ") → "
                + run.aWrite() + "; the store kept B's value: " + (run.staleRefused() ? "yes" : "no"));
        console.verdict("A's renew → " + run.renew() + "; the lost lease was revived: " + (run.notRevived() ? "no" : "yes"));
        return run.staleRefused() && run.notRevived();
    }

    // ------------------------------------------------------------------------------ helpers

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
                        + NAMESPACE + ", and the queue " + ClaimLeaseAct.DEMO_QUEUE + " (" + QUEUE_PREFIX
                        + "…) with its jobs.");
                return;
            }
            long deleted = raw.del(keys.toArray(String[]::new));
            console.line("");
            console.line("Cleanup: DEL of the demo's " + keys.size() + " keys under " + NAMESPACE + " → " + deleted);
            long queueKeys = claimLease.deleteKeys();
            console.line("Cleanup: DEL of the demo queue's keys (SCAN MATCH " + QUEUE_PREFIX
                    + "*) and its maintenance lock → " + queueKeys);
        } catch (RuntimeException e) {
            console.line("Cleanup failed, keys under " + NAMESPACE + " and " + QUEUE_PREFIX + " may remain: "
                    + e.getMessage());
        } finally {
            claimLease.close();
            acts.close();
            rawConnection.close();
            rawClient.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
