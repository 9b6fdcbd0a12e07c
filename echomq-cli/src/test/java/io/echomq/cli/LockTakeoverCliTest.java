package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** {@code emq lock takeover} against a real server: the guard, the confirmation and the exit codes. */
class LockTakeoverCliTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static final Pattern GRANTED = Pattern.compile("OK token=(\\S+) fence=(\\d+)\n");
    private static final Pattern TAKEN = Pattern.compile("(?s).*(?:\n|\\[y/N\\] )TAKEN token=(\\S+) fence=(\\d+) ttl_ms=30000\n");
    private static final String LOCK = "emq:lock:{nightly-billing}:lock";

    private String token;
    private long fence;

    @BeforeEach
    void aHolderThatWillNotRelease() {
        REDIS.flushAll();
        EmqRun run = EmqRun.at(REDIS.url(), "lock", "acquire", "nightly-billing", "--ttl", "600000");
        Matcher m = GRANTED.matcher(run.out());
        assertThat(m.matches()).as("%s", run).isTrue();
        token = m.group(1);
        fence = Long.parseLong(m.group(2));
    }

    /** Runs {@code emq args} with {@code answer} on stdin, on a terminal or not. */
    private static EmqRun emq(boolean terminal, String answer, String... args) {
        CommandLine cli = Emq.commandLine(Map.of(RedisOptions.ENV, REDIS.url()),
                new ByteArrayInputStream(answer.getBytes(StandardCharsets.UTF_8)));
        LockTakeoverCommand takeover = cli.getSubcommands().get("lock").getSubcommands().get("takeover").getCommand();
        takeover.terminal = () -> terminal;
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new EmqRun(code, out.toString(), err.toString());
    }

    private String[] takeover(String... more) {
        String[] base = {"lock", "takeover", "nightly-billing", "--holder", token.substring(0, 8) + "…",
            "--fence", Long.toString(fence), "--ttl", "30000"};
        String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    @Test
    void withoutATerminalAndWithoutYesItRefusesWithItsOwnCodeAndChangesNothing() {
        EmqRun run = emq(false, "y\n", takeover());

        assertThat(run.code()).as("%s", run).isEqualTo(ExitCodes.NOT_CONFIRMED).isEqualTo(10);
        assertThat(run.err()).contains("no terminal to confirm on; add --yes");
        assertThat(run.out()).contains("its writes without a fence are NOT refused").doesNotContain("TAKEN");
        assertThat(REDIS.raw().call("GET", LOCK)).isEqualTo(token);
    }

    @Test
    void aDryRunSaysWhatItWouldDoAndChangesNothing() {
        EmqRun run = emq(false, "", takeover("--dry-run"));

        assertThat(run.code()).as("%s", run).isZero();
        assertThat(run.out()).startsWith("now: held token=" + token.substring(0, 8) + "… label=")
                .contains("fence above " + fence, "its fenced writes are refused").endsWith("DRY-RUN nothing was changed\n");
        assertThat(REDIS.raw().call("GET", LOCK)).isEqualTo(token);
    }

    @Test
    void onATerminalItAsksAndOnlyYesProceeds() {
        EmqRun no = emq(true, "n\n", takeover());
        assertThat(no.code()).as("%s", no).isEqualTo(ExitCodes.NO);
        assertThat(no.out()).contains("Proceed? [y/N] ABORTED nothing was changed\n");
        assertThat(REDIS.raw().call("GET", LOCK)).isEqualTo(token);

        EmqRun yes = emq(true, "y\n", takeover());
        assertThat(yes.code()).as("%s", yes).isZero();
        assertNewHolder(yes);
    }

    @Test
    void withYesItTakesTheLockAndTheOldTokenIsNoLongerTheOwner() {
        EmqRun run = emq(false, "", takeover("--yes"));

        assertThat(run.code()).as("%s", run).isZero();
        assertThat(run.out()).doesNotContain("Proceed?");
        assertNewHolder(run);
        assertThat(EmqRun.at(REDIS.url(), "lock", "renew", "nightly-billing", token, "--ttl", "1000").code())
                .isEqualTo(ExitCodes.NOT_OWNER);
        assertThat(EmqRun.at(REDIS.url(), "lock", "release", "nightly-billing", token).code())
                .isEqualTo(ExitCodes.NOT_OWNER);
    }

    private void assertNewHolder(EmqRun run) {
        Matcher m = TAKEN.matcher(run.out());
        assertThat(m.matches()).as("%s", run).isTrue();
        assertThat(Long.parseLong(m.group(2))).isGreaterThan(fence);
        assertThat(REDIS.raw().call("GET", LOCK)).isEqualTo(m.group(1));
        assertThat(REDIS.raw().call("GET", "emq:lock:{nightly-billing}:fence")).isEqualTo(m.group(2));
        assertThat(m.group(1)).endsWith(":emq-takeover").isNotEqualTo(token);
    }

    @Test
    void aChangedHolderOrFenceIsRefusedWithOne() {
        String[] stale = takeover("--yes");
        assertThat(EmqRun.at(REDIS.url(), "lock", "release", "nightly-billing", token).code()).isZero();
        assertThat(emq(false, "", stale).out()).contains("REFUSED FREE");

        EmqRun again = EmqRun.at(REDIS.url(), "lock", "acquire", "nightly-billing", "--ttl", "600000");
        Matcher m = GRANTED.matcher(again.out());
        assertThat(m.matches()).isTrue();
        EmqRun changed = emq(false, "", stale);
        assertThat(changed.code()).as("%s", changed).isEqualTo(ExitCodes.NO);
        assertThat(changed.out()).contains("REFUSED CHANGED the holder's token");

        String[] oldFence = {"lock", "takeover", "nightly-billing", "--holder", m.group(1).substring(0, 8),
            "--fence", Long.toString(fence), "--ttl", "30000", "--yes"};
        EmqRun moved = emq(false, "", oldFence);
        assertThat(moved.code()).as("%s", moved).isEqualTo(ExitCodes.NO);
        assertThat(moved.out()).contains("REFUSED CHANGED the last fence is " + m.group(2));
        assertThat(REDIS.raw().call("GET", LOCK)).isEqualTo(m.group(1));
    }

    @Test
    void aShortPrefixOrRedlockIsBadInput() {
        EmqRun shortPrefix = emq(false, "", "lock", "takeover", "nightly-billing", "--holder", "abc",
                "--ttl", "30000", "--yes");
        assertThat(shortPrefix.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(shortPrefix.err()).contains("at least 8 characters");
        assertThat(emq(false, "", "lock", "takeover", "--help").out()).contains("10  no terminal to confirm on");
    }
}
