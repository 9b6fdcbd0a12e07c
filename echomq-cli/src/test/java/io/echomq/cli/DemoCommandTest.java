package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import io.echomq.testkit.RedisExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code emq demo}: every act behaves as the seed says, on the test server and on its own. */
class DemoCommandTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void everyActPassesOnTheGivenServerAndItsKeysAreDeleted() {
        REDIS.raw().call("SET", "someone:else", "untouched");

        EmqRun run = EmqRun.run(Map.of(), "demo", "--redis", REDIS.url());

        assertThat(run.err()).isEmpty();
        assertThat(run.code()).as(run.out()).isZero();
        assertPassed(run.out());
        assertThat(run.out()).contains("Server: Redis ", " at " + REDIS.url());
        assertThat(REDIS.raw().call("KEYS", "emq:demo:*")).isEqualTo(List.of());
        assertThat(REDIS.raw().call("GET", "someone:else")).isEqualTo("untouched");
    }

    @Test
    void withoutRedisItRunsOnAnEmbeddedServer() {
        EmqRun run = EmqRun.run(Map.of(RedisOptions.ENV, "redis://127.0.0.1:" + EmqRun.closedPort()), "demo");

        assertThat(run.err()).isEmpty();
        assertThat(run.code()).as(run.out()).isZero();
        assertThat(run.out()).contains("Starting an embedded redis-server on a free port…");
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
                .contains("1 of 2 acts did NOT behave as the seed says.");
    }

    private static void assertPassed(String out) {
        List<String> lines = out.lines().toList();
        int act2 = lines.indexOf("Act 2 · SETNX then EXPIRE, with a crash in the gap");
        assertThat(act2).isPositive();
        assertThat(lines.subList(act2 - 3, act2)).as("act 1 ends with the seed's verdict lines")
                .containsExactly("Holders of the lock: 1", "Double-acquired: no", "");
        for (int act = 1; act <= 5; act++) {
            String prefix = "  Act " + act + "  ";
            assertThat(lines).filteredOn(l -> l.startsWith(prefix)).singleElement(STRING).endsWith(" PASS");
        }
        assertThat(out).contains("All 5 acts behaved as the seed says.", "Cleanup: DEL of the demo's 8 keys")
                .doesNotContain("FAIL");
    }
}
