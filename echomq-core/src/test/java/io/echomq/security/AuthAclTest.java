package io.echomq.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.RedisCommandException;
import io.echomq.internal.LuaScript;
import io.echomq.internal.Scripts;
import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import io.echomq.server.CommandTap;
import io.echomq.server.RawRedis;
import io.echomq.server.RedisServer;
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
import java.util.Map;
import java.util.TreeMap;
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

    /** @return the text of {@code docs/security.md} */
    static String docPage() throws IOException {
        return Files.readString(Path.of("..", "docs", "security.md"));
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

        runEveryFlow(url);

        assertThat(raw().call("ACL", "LOG")).as("no command, key or channel was denied").isEqualTo(List.of());

        try (RawRedis app = RawRedis.connect("127.0.0.1", REDIS.server().port())) {
            app.call("AUTH", "emq-app", password);
            assertThat(app.call("SET", "emq:mine", "1")).isEqualTo("OK");
            for (String[] refused : new String[][] {{"FLUSHALL"}, {"KEYS", "*"}, {"CONFIG", "GET", "*"},
                {"GET", "other:key"}, {"SET", "elsewhere", "1"}, {"PUBLISH", "other-channel", "x"},
                {"SUBSCRIBE", "other-channel"}, {"SCRIPT", "FLUSH"}, {"FLUSHDB"}, {"ACL", "WHOAMI"}}) {
                assertThatThrownBy(() -> app.call(refused)).as(String.join(" ", refused))
                        .isInstanceOf(RawRedis.ErrorReply.class).hasMessageStartingWith("NOPERM");
            }
        }
    }

    @Test
    void everyScriptRunsUnderTheDocumentedLine() throws Exception {
        raw().call(documentedAclLine(password).toArray(String[]::new));
        raw().call("SCRIPT", "FLUSH");
        String url = "redis://emq-app:" + password + "@127.0.0.1:" + REDIS.server().port();
        Map<String, String> bySha = new TreeMap<>();
        for (LuaScript s : Scripts.all()) {
            bySha.put(s.sha(), s.path());
        }
        Set<String> ran = new TreeSet<>();
        try (CommandTap tap = raw().monitor()) {
            runEveryFlow(url);
            raw().call("ECHO", "flows-done");
            assertThat(tap.awaitCommand(c -> c.equals(List.of("ECHO", "flows-done")), Duration.ofSeconds(10))).isTrue();
            for (List<String> c : tap.commands()) {
                String name = c.get(0).toLowerCase(Locale.ROOT);
                if (name.equals("evalsha")) {
                    ran.add(bySha.getOrDefault(c.get(1), "unknown sha " + c.get(1)));
                } else if (name.equals("eval")) {
                    ran.add(bySha.getOrDefault(sha1(c.get(1)), "unknown script " + c.get(1)));
                }
            }
        }
        assertThat(raw().call("ACL", "LOG")).as("no command, key or channel was denied").isEqualTo(List.of());
        assertThat(ran).as("every script of the resources ran as the ACL user").isEqualTo(ScriptResources.scripts());
    }

    /**
     * Runs every flow: {@link Flows#locks}, {@link Flows#lockExtras}, {@link Flows#queues}, {@link Flows#controls},
     * {@link Flows#previousProtocolQueues}.
     * The Redlock masters are this server and two more of the same binary, with the same ACL user when
     * {@code url} names one.
     */
    private void runEveryFlow(String url) throws Exception {
        Flows.locks(keep(LockClient.create(url)), server());
        List<String> masters = new ArrayList<>(List.of(url));
        for (int i = 0; i < 2; i++) {
            RedisServer more = keep(RedisServer.builder().binary(REDIS.server().binary()).start());
            if (url.contains("emq-app:")) {
                try (RawRedis admin = RawRedis.connect("127.0.0.1", more.port())) {
                    admin.call(documentedAclLine(password).toArray(String[]::new));
                }
            }
            masters.add(url.replace(":" + REDIS.server().port(), ":" + more.port()));
        }
        Flows.lockExtras(keep(LockClient.create(url)), masters);
        QueueClient queues = keep(QueueClient.create(url));
        Flows.queues(queues, server());
        Flows.controls(queues);
        Flows.previousProtocolQueues(queues, raw());
    }

    private static String sha1(String text) throws Exception {
        return HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-1")
                .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    @Test
    void theAclLineAllowsExactlyTheCommandsTheFlowsSend() throws Exception {
        Set<String> allowed = documentedAclLine(password).stream().filter(a -> a.startsWith("+"))
                .map(a -> a.substring(1)).collect(Collectors.toCollection(TreeSet::new));
        raw().call("SCRIPT", "FLUSH");
        Set<String> sent = new TreeSet<>();
        try (CommandTap tap = raw().monitor()) {
            runEveryFlow(REDIS.url());
            raw().call("ECHO", "flows-done");
            assertThat(tap.awaitCommand(c -> c.equals(List.of("ECHO", "flows-done")), Duration.ofSeconds(10))).isTrue();
            for (List<String> c : tap.commands()) {
                if (String.join(" ", c).contains("{emq-permissions}")) {
                    continue;   // the permission check's probe (Redis 6.2 runs each command it checks)
                }
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
