package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bad input to {@link RedlockClient}: a clear {@link IllegalArgumentException} before any master is
 * contacted. The URLs point at closed ports where nothing should ever connect, so a check that ran
 * after connecting would fail with a Redis error instead.
 */
class RedlockInputTest {
    private static final String A = "redis://127.0.0.1:1";
    private static final String B = "redis://127.0.0.1:2";
    private static final String C = "redis://127.0.0.1:3";
    private static RedlockMastersFixture masters;

    @BeforeAll
    static void start() {
        masters = new RedlockMastersFixture(3);
    }

    @AfterAll
    static void stop() {
        masters.close();
    }

    private static RedlockClient.Builder urls(String... urls) {
        return RedlockClient.builder().redisUrls(Arrays.asList(urls));
    }

    @Test
    void mastersMustBeAnOddNumberOfAtLeastThree() {
        assertThatThrownBy(() -> RedlockClient.builder().redisUrls(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("an odd number, at least 3");
        assertThatThrownBy(() -> urls())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("an odd number, at least 3");
        assertThatThrownBy(() -> urls(A))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("redisUrls names 1 master; Redlock needs an odd number of at least 3 (with fewer, one "
                        + "failure stops it; for one server use LockClient)");
        assertThatThrownBy(() -> urls(A, B))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("redisUrls names 2 masters;");
        assertThatThrownBy(() -> urls(A, B, C, "redis://127.0.0.1:4"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("redisUrls names 4 masters; use an odd number: 4 tolerate no more failures than 3 "
                        + "(quorum 3)");
        assertThatThrownBy(() -> RedlockClient.builder().build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("redisUrls is required");
    }

    @Test
    void theSameServerTwiceIsRefusedEvenUnderAnotherDatabaseOrCase() {
        assertThatThrownBy(() -> urls(A, B, A))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("redisUrls names the server 127.0.0.1:1 twice; Redlock masters must be independent servers");
        assertThatThrownBy(() -> urls("redis://LocalHost:7000/0", B, "redis://localhost:7000/3"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("localhost:7000 twice");
    }

    @Test
    void aMalformedUrlIsNamedWithoutItsPassword() {
        assertThatThrownBy(() -> urls(A, "redis://user:s3cret@:6379", C))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no host").hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> urls(A, "http://127.0.0.1:6379", C))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scheme");
        assertThatThrownBy(() -> urls(A, null, C)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void settingsAreCheckedAsTheyAreGiven() {
        assertThatThrownBy(() -> RedlockClient.builder().masterTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("masterTimeout");
        assertThatThrownBy(() -> RedlockClient.builder().retryDelay(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("retryDelay");
        assertThatThrownBy(() -> RedlockClient.builder().namespace("a{b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'{' or '}'");
        assertThatThrownBy(() -> RedlockClient.builder().clock(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("clock");
    }

    @Test
    void operationsCheckTheirArgumentsBeforeAnyMasterIsTouched() {
        RedlockClient redlock = masters.client();
        Duration ttl = Duration.ofSeconds(1);
        assertThatThrownBy(() -> redlock.tryAcquire("", ttl)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("resource must not be null or empty");
        assertThatThrownBy(() -> redlock.tryAcquire("r", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("ttl must be positive");
        assertThatThrownBy(() -> redlock.tryAcquire("r", Duration.ofDays(2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("above the maximum");
        assertThatThrownBy(() -> redlock.tryAcquire("r", ttl, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> redlock.acquire("r", ttl, Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxWait");
        assertThatThrownBy(() -> redlock.release("r", "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> redlock.renew("r", "t", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> redlock.inspect("x".repeat(1025))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1025 bytes");
        assertThat(masters.getOnEach("emq:lock:{r}:lock")).containsExactly(null, null, null);
    }

    @Test
    void waitForReplicasIsRefusedByNameBeforeAnyMasterIsTouched() {
        RedlockClient redlock = masters.client();
        Duration ttl = Duration.ofSeconds(1);
        AcquireOptions acked = AcquireOptions.defaults().waitForReplicas(1, Duration.ofMillis(100));
        String message = "waitForReplicas is not supported by RedlockClient: a grant is safe once a quorum of "
                + "independent masters holds it; acquire without waitForReplicas, or use LockClient on a single "
                + "server with replicas";
        assertThatThrownBy(() -> redlock.tryAcquire("r", ttl, acked))
                .isInstanceOf(UnsupportedOperationException.class).hasMessage(message);
        assertThatThrownBy(() -> redlock.tryAcquireAsync("r", ttl, acked))
                .as("thrown, not a failed future").isInstanceOf(UnsupportedOperationException.class)
                .hasMessage(message);
        assertThatThrownBy(() -> redlock.acquire("r", ttl, Duration.ofSeconds(1), acked.plain().withWatchdog()))
                .isInstanceOf(UnsupportedOperationException.class).hasMessage(message);
        assertThat(masters.getOnEach("emq:lock:{r}:lock")).containsExactly(null, null, null);
        assertThat(masters.getOnEach("emq:lock:{r}:fence")).containsExactly(null, null, null);
    }
}
