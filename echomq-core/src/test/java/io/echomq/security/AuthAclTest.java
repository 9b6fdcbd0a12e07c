package io.echomq.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.RedisCommandException;
import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import io.echomq.server.CommandTap;
import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Connections with a password ({@code requirepass}) and with an ACL user that has only the
 * commands, keys and channels EchoMQ needs. The ACL line is read from {@code docs/security.md}, so
 * the page and the test cannot drift apart; every lock, queue and worker path runs under it with
 * no denial in {@code ACL LOG}, and commands, keys and channels outside it are refused.
 */
@org.junit.jupiter.api.Tag("standalone-only")   // sets requirepass and ACL users on one server (docs/scaling.md)
@Timeout(180)
class AuthAclTest {
    /** The placeholder the documented line carries instead of a real password. */
    static final String PLACEHOLDER = ">change-me-to-a-long-random-password";

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void clean() {
        REDIS.flushAll();
        raw().call("ACL", "LOG", "RESET");
    }

    @AfterEach
    void restore() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        raw().call("CONFIG", "SET", "requirepass", "");
        raw().call("ACL", "DELUSER", "emq-app");
    }

    /** @return the documented ACL line, split into arguments, with a fresh password */
    static List<String> documentedAclLine(String password) throws IOException {
        Path doc = Path.of("..", "docs", "security.md");
        String line = Files.readAllLines(doc).stream().filter(l -> l.startsWith("ACL SETUSER emq-app "))
                .findFirst().orElseThrow(() -> new AssertionError("no 'ACL SETUSER emq-app' line in " + doc));
        assertThat(line).contains(PLACEHOLDER);
        List<String> args = new ArrayList<>(Arrays.asList(line.trim().split(" +")));
        args.replaceAll(a -> a.equals(PLACEHOLDER) ? ">" + password : a);
        return args;
    }

    @Test
    void theDocumentedAclLineRunsEveryFlowAndRefusesTheRest() throws Exception {
        Object ok = raw().call(documentedAclLine(password).toArray(String[]::new));
        assertThat(ok).isEqualTo("OK");
        raw().call("SCRIPT", "FLUSH");   // so that the EVAL fallback on NOSCRIPT runs too
        String url = "redis://emq-app:" + password + "@127.0.0.1:" + REDIS.server().port();

        Flows.locks(keep(LockClient.create(url)), server());
        Flows.queues(keep(QueueClient.create(url)), server());

        assertThat(raw().call("ACL", "LOG")).as("no command, key or channel was denied").isEqualTo(List.of());

        try (RawRedis app = RawRedis.connect("127.0.0.1", REDIS.server().port())) {
            app.call("AUTH", "emq-app", password);
            assertThat(app.call("SET", "emq:mine", "1")).isEqualTo("OK");
            for (String[] refused : new String[][] {{"FLUSHALL"}, {"KEYS", "*"}, {"CONFIG", "GET", "*"},
                {"GET", "other:key"}, {"SET", "elsewhere", "1"}, {"PUBLISH", "other-channel", "x"},
                {"SUBSCRIBE", "other-channel"}, {"SCRIPT", "FLUSH"}, {"SCAN", "0"}, {"ACL", "WHOAMI"}}) {
                assertThatThrownBy(() -> app.call(refused)).as(String.join(" ", refused))
                        .isInstanceOf(RawRedis.ErrorReply.class).hasMessageStartingWith("NOPERM");
            }
        }
    }

    @Test
    void theAclLineAllowsExactlyTheCommandsTheFlowsSend() throws Exception {
        Set<String> allowed = documentedAclLine(password).stream().filter(a -> a.startsWith("+"))
                .map(a -> a.substring(1)).collect(Collectors.toCollection(TreeSet::new));
        raw().call("SCRIPT", "FLUSH");
        Set<String> sent = new TreeSet<>();
        try (CommandTap tap = raw().monitor()) {
            Flows.locks(keep(LockClient.create(REDIS.url())), server());
            Flows.queues(keep(QueueClient.create(REDIS.url())), server());
            raw().call("ECHO", "flows-done");
            assertThat(tap.awaitCommand(c -> c.equals(List.of("ECHO", "flows-done")), Duration.ofSeconds(10))).isTrue();
            for (List<String> c : tap.commands()) {
                String name = c.get(0).toLowerCase(Locale.ROOT);
                if (name.equals("command") || name.equals("client")) {
                    name += "|" + c.get(1).toLowerCase(Locale.ROOT);
                }
                sent.add(name);
            }
        }
        // HELLO (with AUTH) is allowed to every user; ECHO is this test's marker
        sent.removeAll(Set.of("hello", "auth", "echo"));
        assertThat(allowed).as("every command of the ACL line is used, and every command used is in it")
                .isEqualTo(sent);
    }

    @Test
    void aWrongOrMissingAclPasswordIsRefusedWithoutEchoingIt() throws Exception {
        raw().call(documentedAclLine(password).toArray(String[]::new));
        String wrong = "wrong-" + password;
        String url = "redis://emq-app:" + wrong + "@127.0.0.1:" + REDIS.server().port();
        assertThatThrownBy(() -> LockClient.create(url)).isInstanceOf(RedisCommandException.class)
                .satisfies(e -> assertThat(allMessages(e)).doesNotContain(wrong).doesNotContain(password)
                        .contains("redis://***@127.0.0.1"));
        assertThatThrownBy(() -> QueueClient.create(url)).isInstanceOf(RedisCommandException.class)
                .satisfies(e -> assertThat(allMessages(e)).doesNotContain(wrong));
    }

    @Test
    void aServerPasswordIsUsedFromTheUrlAndNeverEchoed() throws Exception {
        raw().call("CONFIG", "SET", "requirepass", password);
        String url = "redis://:" + password + "@127.0.0.1:" + REDIS.server().port();

        Flows.locks(keep(LockClient.create(url)), server());
        Flows.queues(keep(QueueClient.create(url)), server());

        String noPassword = "redis://127.0.0.1:" + REDIS.server().port();
        assertThatThrownBy(() -> LockClient.create(noPassword)).isInstanceOf(RedisCommandException.class)
                .satisfies(e -> assertThat(allMessages(e)).containsAnyOf("NOAUTH", "Authentication required"));
        String wrong = "redis://:not-" + password + "@127.0.0.1:" + REDIS.server().port();
        assertThatThrownBy(() -> LockClient.create(wrong)).isInstanceOf(RedisCommandException.class)
                .satisfies(e -> assertThat(allMessages(e)).doesNotContain(password)
                        .containsAnyOf("WRONGPASS", "invalid password", "invalid username-password"));
    }

    private <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    static String allMessages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t).append('\n');
            if (t.getCause() == t) {
                break;
            }
        }
        return b.toString();
    }

    private static RawRedis raw() {
        return REDIS.raw();
    }

    /** The product and version the server under test reports in INFO server, for example "Valkey 8.0.1". */
    private static String server() {
        return REDIS.server().product() + " " + REDIS.server().version();
    }
}
