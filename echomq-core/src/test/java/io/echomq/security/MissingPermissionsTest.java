package io.echomq.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.MissingPermissionsException;
import io.echomq.internal.PermissionCheck;
import io.echomq.internal.Scripts;
import io.echomq.lock.LockClient;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.QueueClient;
import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client whose ACL user lacks a command its scripts run refuses to start, naming the command,
 * and writes nothing: so no script can stop halfway on a missing permission. The users are the
 * documented line of {@code docs/security.md} with rules taken out.
 */
@org.junit.jupiter.api.Tag("standalone-only")   // creates ACL users on one server
@Timeout(120)
class MissingPermissionsTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));

    @BeforeEach
    void clean() {
        REDIS.flushAll();
        REDIS.raw().call("ACL", "LOG", "RESET");
    }

    @AfterEach
    void dropUser() {
        REDIS.raw().call("ACL", "DELUSER", "emq-app");
    }

    /** Creates the documented user without the rules {@code without}; returns its URL. */
    private String userWithout(String... without) throws Exception {
        List<String> line = new ArrayList<>(AuthAclTest.documentedAclLine(password));
        for (String rule : without) {
            assertThat(line.remove(rule)).as("the documented line grants %s", rule).isTrue();
        }
        REDIS.raw().call("ACL", "DELUSER", "emq-app");
        REDIS.raw().call(line.toArray(String[]::new));
        return "redis://emq-app:" + password + "@127.0.0.1:" + REDIS.server().port();
    }

    /** A queue with a grouped job, a pending job, a delayed one and a running one, written as admin. */
    private void someQueueState() {
        try (QueueClient admin = QueueClient.create(REDIS.url())) {
            var q = admin.queue("perm");
            q.enqueue("g", EnqueueOptions.defaults().withGroup("tenant-a"));
            q.enqueue("p");
            q.enqueue("d".getBytes(), EnqueueOptions.defaults().withDelay(java.time.Duration.ofHours(1)));
            q.claim(java.time.Duration.ofMinutes(1)).orElseThrow();
        }
    }

    @Test
    void aUserWithoutSaddCannotStartAQueueClientAndNothingIsWritten() throws Exception {
        someQueueState();
        String url = userWithout("+sadd");
        Map<String, String> before = Keyspace.snapshot(REDIS.raw());
        assertThatThrownBy(() -> QueueClient.create(url)).isInstanceOf(MissingPermissionsException.class)
                .hasMessageContaining("may not run sadd on keys and channels under 'emq:'")
                .hasMessageContaining("Grant +sadd")
                .satisfies(e -> assertThat(((MissingPermissionsException) e).missingCommands()).containsExactly("sadd"));
        assertThat(Keyspace.snapshot(REDIS.raw())).as("nothing was written").isEqualTo(before);
    }

    @Test
    void aUserWithoutSismemberCannotRunAGroupedEnqueueHalfway() throws Exception {
        // SISMEMBER is what a grouped enqueue runs after it has written the job: without the check,
        // the job would be counted as waiting in its group and never be claimable
        someQueueState();
        String url = userWithout("+sismember");
        Map<String, String> before = Keyspace.snapshot(REDIS.raw());
        assertThatThrownBy(() -> {
            try (QueueClient client = QueueClient.create(url)) {
                client.queue("perm").enqueue("g2", EnqueueOptions.defaults().withGroup("tenant-a"));
            }
        }).isInstanceOf(MissingPermissionsException.class).hasMessageContaining("sismember");
        assertThat(Keyspace.snapshot(REDIS.raw())).as("nothing was written").isEqualTo(before);
    }

    @Test
    void everyMissingCommandIsNamedAtOnce() throws Exception {
        someQueueState();
        String url = userWithout("+sadd", "+xadd", "+zrank");
        Map<String, String> before = Keyspace.snapshot(REDIS.raw());
        assertThatThrownBy(() -> QueueClient.create(url)).isInstanceOf(MissingPermissionsException.class)
                .satisfies(e -> assertThat(((MissingPermissionsException) e).missingCommands())
                        .containsExactly("sadd", "xadd", "zrank"));
        assertThat(Keyspace.snapshot(REDIS.raw())).isEqualTo(before);
    }

    @Test
    void aLockClientChecksTheLockScriptsCommands() throws Exception {
        String url = userWithout("+pexpire");
        assertThatThrownBy(() -> LockClient.create(url)).isInstanceOf(MissingPermissionsException.class)
                .satisfies(e -> assertThat(((MissingPermissionsException) e).missingCommands()).containsExactly("pexpire"));
        // the lock side runs no set command: a user without them may still use locks
        String locksOnly = userWithout("+sadd", "+srem", "+sismember");
        try (LockClient locks = LockClient.create(locksOnly)) {
            assertThat(locks.tryAcquire("perm", java.time.Duration.ofSeconds(5))).isPresent();
        }
        assertThat(Keyspace.snapshot(REDIS.raw()).keySet()).noneMatch(k -> k.contains("emq-permissions"));
    }

    @Test
    void theFullLinePassesTheCheckAndTheCheckLeavesNothingBehind() throws Exception {
        String url = userWithout();
        try (QueueClient q = QueueClient.create(url); LockClient l = LockClient.create(url)) {
            assertThat(Keyspace.snapshot(REDIS.raw())).isEmpty();
        }
        assertThat(REDIS.raw().call("ACL", "LOG")).isEqualTo(List.of());
    }

    @Test
    void theCheckHasAHarmlessFormForEveryCommandTheScriptsRun() {
        // as admin (who may run everything), every command the scripts name passes: the probe knows a
        // form of each, or it would answer ERR naming the one it lacks
        Set<String> all = PermissionCheck.commands(Scripts.all());
        assertThat(all).contains("spublish", "sadd");
        try (QueueClient q = QueueClient.create(REDIS.url())) {
            assertThat(q.serverDescription()).isNotEmpty();
        }
        RawRedis admin = REDIS.raw();
        List<String> args = new ArrayList<>(List.of("EVAL", Scripts.PERMISSIONS.body(), "1", "emq:{emq-permissions}:probe",
                "emq:{emq-permissions}:wake"));
        all.stream().filter(c -> !c.equals("spublish") || REDIS.server().version().compareTo("7") >= 0).forEach(args::add);
        assertThat(admin.call(args.toArray(String[]::new))).isEqualTo(List.of());
        assertThat(Keyspace.snapshot(admin)).isEmpty();
    }
}
