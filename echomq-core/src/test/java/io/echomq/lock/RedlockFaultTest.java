package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.RedisCommandException;
import io.echomq.testkit.LockHistory;
import io.echomq.server.RedisServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Redlock with masters killed: five real servers per test, some stopped mid-test. Still no double
 * grant while a quorum lives; a clean {@link RedlockQuorumException} once it does not.
 */
class RedlockFaultTest {
    private static final int CLIENTS = 4;
    private static final int ROUNDS = 50;

    /**
     * Holds the lock for 1–5 ms and records the grant in the history: from the acquire's reply until just before
     * its release is sent (or the lease's local deadline, if earlier), which is the time its holder relied on it.
     */
    private static void holdOnce(RedlockClient c, String holder, LockHistory history) throws InterruptedException {
        long sent = System.nanoTime();
        try (Lease lease = c.acquire("shared", Duration.ofSeconds(10), Duration.ofSeconds(60))) {
            long reply = System.nanoTime();
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextLong(1_000, 5_000)));
            long end = Math.min(System.nanoTime(), lease.validUntilNanos());
            history.grant(new LockHistory.Grant(holder, lease.fence(), sent, reply, end));
        }
    }

    @Test
    void contendingClientsNeverOverlapWhileTwoOfFiveMastersAreKilled() throws Exception {
        try (RedlockMastersFixture masters = new RedlockMastersFixture(5)) {
            LockHistory history = new LockHistory();
            List<RedlockClient> clients = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(masters.client(b -> b.retryDelay(Duration.ofMillis(20))));
            }
            ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
            try {
                List<Future<Integer>> lockers = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    RedlockClient c = clients.get(i);
                    String holder = "client-" + i;
                    lockers.add(pool.submit(() -> {
                        for (int round = 0; round < ROUNDS; round++) {
                            holdOnce(c, holder, history);
                        }
                        return ROUNDS;
                    }));
                }
                int total = CLIENTS * ROUNDS;
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(1))
                        .until(() -> history.grants() >= total / 3);
                masters.kill(1);
                int atFirstKill = history.grants();
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(1))
                        .until(() -> history.grants() >= 2 * total / 3);
                masters.kill(3);
                int atSecondKill = history.grants();
                int done = 0;
                for (Future<Integer> f : lockers) {
                    done += f.get(120, TimeUnit.SECONDS);
                }
                assertThat(done).isEqualTo(total);
                assertThat(atSecondKill).as("both kills happened while the clients were still contending")
                        .isLessThan(total).isGreaterThan(atFirstKill);
                LockHistory.Report report = history.check();
                assertThat(report.violations()).as("no two holds overlap; fences rise in grant order").isEmpty();
                assertThat(report.grants()).isEqualTo(total);
                assertThat(masters.getOnEach("emq:lock:{shared}:lock"))
                        .as("released on every surviving master")
                        .containsExactly(null, "<killed>", null, "<killed>", null);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void losingTheQuorumFailsCleanly() throws Exception {
        try (RedlockMastersFixture masters = new RedlockMastersFixture(5)) {
            RedlockClient redlock = masters.client();
            Lease held = redlock.tryAcquire("held", Duration.ofSeconds(30)).orElseThrow();
            String dead = masters.servers.get(0).url();

            masters.kill(0);
            masters.kill(1);
            masters.kill(2);

            assertThatThrownBy(() -> redlock.tryAcquire("orders", Duration.ofSeconds(30)))
                    .isInstanceOfSatisfying(RedlockQuorumException.class, e -> {
                        assertThat(e.answered()).isEqualTo(2);
                        assertThat(e.quorum()).isEqualTo(3);
                        assertThat(e.masters()).isEqualTo(5);
                        assertThat(e.command()).isEqualTo("REDLOCK acquire");
                        assertThat(e.resource()).isEqualTo("orders");
                    })
                    .hasMessageStartingWith("Redlock acquire of 'orders' failed: only 2 of 5 masters answered, "
                            + "a quorum is 3; failed: " + dead);
            assertThat(masters.getOnEach("emq:lock:{orders}:lock")).as("our grants on the survivors undone")
                    .containsExactly("<killed>", "<killed>", "<killed>", null, null);
            assertThatThrownBy(() -> redlock.acquire("orders", Duration.ofSeconds(30), Duration.ofSeconds(30)))
                    .isInstanceOf(RedlockQuorumException.class);
            assertThatThrownBy(() -> redlock.inspect("orders")).isInstanceOf(RedlockQuorumException.class);

            // A renewal that cannot reach a quorum is unknown, not a loss: the lease keeps its deadline.
            assertThatThrownBy(held::renew).isInstanceOf(RedlockQuorumException.class);
            assertThat(held.isLost()).isFalse();
            assertThat(held.isHeld()).isTrue();
            // Release still cleans the survivors; the dead masters took their keys with them.
            assertThat(held.release()).isEqualTo(ReleaseOutcome.RELEASED);
            assertThat(masters.getOnEach("emq:lock:{held}:lock"))
                    .containsExactly("<killed>", "<killed>", "<killed>", null, null);
        }
    }

    @Test
    void aMinorityDownAtStartIsToleratedAndUsedOnceItComesUp() {
        try (RedlockMastersFixture live = new RedlockMastersFixture(3)) {
            int late = closedPort();
            List<String> urls = new ArrayList<>(live.urls());
            urls.add("redis://127.0.0.1:" + late);
            urls.add("redis://127.0.0.1:" + closedPort());

            try (RedlockClient redlock = RedlockClient.builder().redisUrls(urls)
                    .masterTimeout(Duration.ofSeconds(2)).build()) {
                Lease lease = redlock.tryAcquire("orders", Duration.ofSeconds(30)).orElseThrow();
                assertThat(live.getOnEach("emq:lock:{orders}:lock")).containsOnly(lease.token());
                assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);

                try (RedisServer comesUp = RedisServer.builder().port(late).start()) {
                    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                        try (Lease l = redlock.tryAcquire("orders", Duration.ofSeconds(30)).orElseThrow();
                             io.echomq.server.RawRedis raw = io.echomq.server.RawRedis.connect("127.0.0.1", late)) {
                            assertThat(raw.call("GET", "emq:lock:{orders}:lock")).isEqualTo(l.token());
                        }
                    });
                }
            }
        }
    }

    @Test
    void aMajorityDownAtStartFailsTheBuildAndNamesTheMasters() {
        try (RedlockMastersFixture live = new RedlockMastersFixture(1)) {
            List<String> urls = new ArrayList<>(live.urls());
            String dead = "redis://127.0.0.1:" + closedPort();
            urls.add(dead);
            urls.add("redis://127.0.0.1:" + closedPort());

            assertThatThrownBy(() -> RedlockClient.builder().redisUrls(urls).build())
                    .isInstanceOf(RedisCommandException.class)
                    .hasMessageContaining("reached 1 of 3 Redlock masters, 2 needed; unreachable: " + dead);
        }
    }

    private static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
