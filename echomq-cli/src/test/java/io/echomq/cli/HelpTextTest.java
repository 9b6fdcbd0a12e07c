package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Help and messages speak the shell user's language: ranges and defaults are stated, an option
 * that would be silently ignored is refused, and no Java name or internal reference leaks into
 * what a user reads.
 */
class HelpTextTest {

    private static String help(String... command) {
        List<String> args = new ArrayList<>(List.of(command));
        args.add("-h");
        return EmqRun.run(Map.of(), args.toArray(String[]::new)).out().replaceAll("\\s+", " ");
    }

    @Test
    void rangesAndDefaultsAreStated() {
        assertThat(help("lock", "acquire")).contains("--ttl=<ms> Lease ttl, 1..86400000 milliseconds",
                "Default: no wait, nil at once", "--master-timeout", "1..60000", "Default: 1000");
        assertThat(help("lock", "renew")).contains("New ttl, 1..86400000 milliseconds");
    }

    @Test
    void everyUrlSchemeIsListedWithRedis() {
        String help = help("queue", "stats").replace(" ", "");   // the help wraps a long URL anywhere
        for (String scheme : io.echomq.RedisUrl.SCHEMES) {
            assertThat(help).contains(scheme);
        }
    }

    @Test
    void benchIsListedAtTheTop() {
        assertThat(help()).contains("bench Measures EchoMQ against its peers");
    }

    @Test
    void noInternalReferencesInAnyHelp() {
        List<String> all = new ArrayList<>();
        collect(Emq.commandLine(Map.of()), all);
        for (String text : all) {
            assertThat(text).doesNotContain("R2.0", "seed", "issue ", "LockClient", "QueueClient",
                    "trustedCertificates", "SPUBLISH: ");
        }
    }

    private static void collect(CommandLine cmd, List<String> all) {
        all.add(cmd.getUsageMessage());
        cmd.getSubcommands().values().forEach(sub -> collect(sub, all));
    }

    @Test
    void masterTimeoutWithoutRedlockIsRefused() {
        String url = "redis://127.0.0.1:" + EmqRun.closedPort();
        EmqRun run = EmqRun.at(url, "lock", "acquire", "r", "--ttl", "1000", "--master-timeout", "500");
        assertThat(run.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(run.err()).contains("--master-timeout needs --redlock");
    }

    @Test
    void messagesNameOptionsNotJavaCalls() {
        EmqRun twoMasters = EmqRun.run(Map.of(), "lock", "inspect", "r", "--redlock",
                "redis://127.0.0.1:1,redis://127.0.0.1:2");
        assertThat(twoMasters.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(twoMasters.err()).contains("--redlock names 2 masters").contains("use --redis")
                .doesNotContain("LockClient", "redisUrls");

        EmqRun badCa = EmqRun.run(Map.of(), "lock", "inspect", "r", "--redis", "rediss://127.0.0.1:1",
                "--redis-ca", "/no/such/ca.pem");
        assertThat(badCa.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(badCa.err()).contains("--redis-ca: /no/such/ca.pem is not a readable file")
                .doesNotContain("trustedCertificates");
    }

    @Test
    void theServerLineExplainsSharedPubSub() {
        assertThat(WorkerCommand.describeServer("Redis 6.2.11 (SPUBLISH: no)"))
                .isEqualTo("Redis 6.2.11 (sharded pub/sub (SPUBLISH, Redis 7+): no, wake-ups use PUBLISH)");
        assertThat(WorkerCommand.describeServer("Redis Cluster 7.0.15 (3 masters, SPUBLISH: yes)"))
                .isEqualTo("Redis Cluster 7.0.15 (3 masters, sharded pub/sub (SPUBLISH): yes)");
    }

    @Test
    void theDashboardHeaderNamesTheProductOnly() {
        assertThat(DashboardCommand.productOnly("Redis 6.2.11 (SPUBLISH: no)")).isEqualTo("Redis 6.2.11");
        assertThat(DashboardCommand.productOnly("Redis Cluster 7.0.15 (3 masters, SPUBLISH: yes)"))
                .isEqualTo("Redis Cluster 7.0.15 (3 masters)");
    }
}
