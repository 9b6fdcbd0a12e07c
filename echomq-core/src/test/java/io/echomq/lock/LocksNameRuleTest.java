package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One name rule on every {@link Locks} client: a resource holding '{' or '}' is refused with the
 * same message by {@link LockClient} and {@link RedlockClient}, on every operation, before any
 * key is written; a resource without one is accepted by both.
 */
class LocksNameRuleTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Duration TTL = Duration.ofSeconds(5);
    private static RedlockMastersFixture masters;
    private static LockClient single;
    private static RedlockClient redlock;

    @BeforeAll
    static void start() {
        masters = new RedlockMastersFixture(3);
        redlock = masters.client();
        single = LockClient.create(REDIS.url());
    }

    @AfterAll
    static void stop() {
        single.close();
        masters.close();
    }

    static Stream<Arguments> bracedNames() {
        Stream.Builder<Arguments> cases = Stream.builder();
        for (String client : new String[] {"LockClient", "RedlockClient"}) {
            cases.add(Arguments.of(client, "a{b", "found '{' at index 1"));
            cases.add(Arguments.of(client, "}lead", "found '}' at index 0"));
            cases.add(Arguments.of(client, "{tag}", "found '{' at index 0"));
        }
        return cases.build();
    }

    private static Locks client(String name) {
        return name.equals("LockClient") ? single : redlock;
    }

    @ParameterizedTest(name = "{0} refuses {1}")
    @MethodSource("bracedNames")
    void aBraceIsRefusedWithOneMessageOnEveryOperation(String clientName, String resource, String where) {
        Locks locks = client(clientName);
        String message = "resource must not contain '{' or '}' (it is the hash tag of the lock's keys); " + where;
        for (Consumer<Locks> call : calls(resource)) {
            assertThatThrownBy(() -> call.accept(locks)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(message);
        }
        for (Object written : java.util.List.of(REDIS.raw().call("KEYS", "*"), masters.raw(0).call("KEYS", "*"))) {
            assertThat(written).asList().as("keys written").noneMatch(k -> k.toString().contains(resource));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("clients")
    void aNameWithoutBracesIsAcceptedAndKeyedAlike(String clientName) throws Exception {
        Locks locks = client(clientName);
        String resource = "invoice:42 / é";
        assertThat(locks.lockKey(resource)).isEqualTo("emq:lock:{" + resource + "}:lock");
        try (Lease lease = locks.acquire(resource, TTL, Duration.ofSeconds(5))) {
            assertThat(locks.inspect(resource).holderToken()).contains(lease.token());
        }
    }

    static Stream<String> clients() {
        return Stream.of("LockClient", "RedlockClient");
    }

    private static java.util.List<Consumer<Locks>> calls(String r) {
        return java.util.List.of(
                l -> l.tryAcquire(r, TTL),
                l -> l.tryAcquireAsync(r, TTL, AcquireOptions.defaults()),
                l -> {
                    try {
                        l.acquire(r, TTL, Duration.ofMillis(10));
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                },
                l -> l.release(r, "token"),
                l -> l.renew(r, "token", TTL),
                l -> l.inspect(r),
                l -> l.lockKey(r));
    }
}
