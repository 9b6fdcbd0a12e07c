package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import io.echomq.testkit.RedisExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code emq demo}: every act behaves as the seed says, on the test server and on its own. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)   // act 6 stops itself after 30 s; the lock acts take seconds
class DemoCommandTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void everyActPassesOnTheGivenServerAndItsKeysAreDeleted() {
        REDIS.raw().call("SET", "someone:else", "untouched");
        // An earlier, interrupted run's queue: a counter and a pending id with no job hash. Unless
        // act 6 deletes them first, they would show as 1,007 completions and one dead job.
        REDIS.raw().call("HSET", "emq:{demo-jobs}:stats", "completed", "7");
        REDIS.raw().call("ZADD", "emq:{demo-jobs}:pending", "0", "999999");

        EmqRun run = EmqRun.run(Map.of(), "demo", "--redis", REDIS.url());

        assertThat(run.err()).isEmpty();
        assertThat(run.code()).as(run.out()).isZero();
        assertPassed(run.out());
        String server = REDIS.server().product() + " " + REDIS.server().version();   // as INFO server names it
        // the server line names the server as INFO server does, and explains sharded pub/sub in words
        assertThat(run.out()).contains("Server: " + server + " (sharded pub/sub (SPUBLISH", " at " + REDIS.url());
        assertThat(REDIS.raw().call("KEYS", "emq:demo:*")).isEqualTo(List.of());
        assertThat(REDIS.raw().call("KEYS", "emq:{demo-jobs}:*")).isEqualTo(List.of());
        assertThat(REDIS.raw().call("EXISTS", "emq:lock:{queue:demo-jobs:maintenance}:lock")).isEqualTo(0L);
        assertThat(run.out().lines()).as("act 6 first deletes the earlier run's two keys").anyMatch(l -> l.startsWith(
                "  P   SCAN MATCH emq:{demo-jobs}:* + DEL (an earlier run's keys)") && l.endsWith("→ 2 deleted"));
        assertThat(run.out()).containsPattern(
                "Cleanup: DEL of the demo queue's keys \\(SCAN MATCH emq:\\{demo-jobs}:\\*\\) and its maintenance lock → "
                        + "[1-9][0-9]{3,}");   // at least the 1,000 job hashes
        assertThat(REDIS.raw().call("GET", "someone:else")).isEqualTo("untouched");
    }

    @Test
    void withoutRedisItRunsOnAnEmbeddedServer() {
        EmqRun run = EmqRun.run(Map.of(RedisOptions.ENV, "redis://127.0.0.1:" + EmqRun.closedPort()), "demo");

        assertThat(run.err()).isEmpty();
        assertThat(run.code()).as(run.out()).isZero();
        assertThat(run.out()).contains("Starting an embedded redis-server on a free port…");
        // the same binary as the test's own server (EMQ_REDIS_SERVER, else the embedded one)
        assertThat(run.out()).contains("Started " + REDIS.server().product() + " " + REDIS.server().version() + " at ");
        assertPassed(run.out());
    }

    @Test
    void theSummaryFailsWhenAnyActFails() {
        StringWriter out = new StringWriter();
        DemoConsole console = new DemoConsole(new PrintWriter(out, true));

        boolean passed = console.summary(List.of(new DemoScenarios.ActResult(1, "one", true),
                new DemoScenarios.ActResult(2, "two", false)));

        assertThat(passed).isFalse();
        assertThat(out.toString()).contains("Act 1  one", "Act 2  two").containsOnlyOnce("PASS").containsOnlyOnce("FAIL")
                .contains("1 of 2 acts did NOT behave as expected.");
    }

    private static void assertPassed(String out) {
        List<String> lines = out.lines().toList();
        int act2 = lines.indexOf("Act 2 · SETNX then EXPIRE, with a crash in the gap");
        assertThat(act2).isPositive();
        assertThat(lines.subList(act2 - 3, act2)).as("act 1 ends with the seed's verdict lines")
                .containsExactly("Holders of the lock: 1", "Double-acquired: no", "");
        for (int act = 1; act <= 6; act++) {
            String prefix = "  Act " + act + "  ";
            assertThat(lines).filteredOn(l -> l.startsWith(prefix)).singleElement(STRING).endsWith(" PASS");
        }
        assertThat(out).contains("All 6 acts behaved as expected.", "Cleanup: DEL of the demo's 8 keys")
                .doesNotContain("FAIL");
        int act6 = lines.indexOf("Act 6 · The claim lease: a job queue that no crash can lose and no stale worker can finish");
        assertThat(act6).as("act 6 follows act 5").isGreaterThan(lines.indexOf(
                "Act 5 · A stale holder's fenced write is refused after the lease moved on"));
        List<String> claimLease = lines.subList(act6, lines.indexOf("Summary"));
        assertThat(claimLease).contains("Jobs enqueued: 1000", "Accepted completions: 1000",
                "Jobs completed exactly once: 1000", "Jobs lost: 0 (enqueued 1000 − completed 1000 − dead 0)",
                "Queue drained: yes");
        assertThat(claimLease).anyMatch(l -> l.startsWith("  w4  claim-8 (lease 400 ms)") && l.endsWith(
                " attempt 1; its handler blocks mid-job"));
        assertThat(claimLease).anyMatch(l -> l.startsWith("  w4  is killed mid-job: abandon()"));
        // A rerun normally gets attempt 2; on a starved machine a further lease may expire first.
        assertThat(claimLease).anyMatch(l -> l.matches("  w[123]  claim-8 → job \\d+ attempt [2-9], runs it, complete .*"
                + "→ COMPLETED, \\d+ ms after the kill"));
        assertThat(claimLease).anyMatch(l -> l.matches(".*\"lease expired on attempt \\d \\(the worker stopped renewing it\\)\""));
        assertThat(claimLease).anyMatch(l -> l.startsWith("  w4  complete job ") && l.endsWith("→ LEASE_LOST (SUPERSEDED)"));
        assertThat(claimLease).anyMatch(l -> l.matches("Reaped leases: [1-9]\\d* \\(claims \\d+ − completed 1000 "
                + "− failed \\d+ − returned \\d+\\)"));
        assertThat(claimLease).anyMatch(l -> l.matches("Stale completion of job \\d+ \\(attempt 1\\) → LEASE_LOST "
                + "\\(SUPERSEDED\\); its attempts: 1 before the kill, [2-9] after the rerun"));
    }
}
