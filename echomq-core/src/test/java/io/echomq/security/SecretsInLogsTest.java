package io.echomq.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.echomq.RedisCommandException;
import io.echomq.lock.AcquireOptions;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Worker;
import io.echomq.server.RawRedis;
import io.echomq.testkit.RedisExtension;
import io.echomq.testkit.TestCertificates;
import io.echomq.server.TlsRedisServer;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Passwords and lease tokens never reach the logs or the console. Everything the JVM prints to
 * stdout and stderr is captured (the tests' SLF4J binding, slf4j-simple at its default INFO level,
 * writes there, and so do Lettuce's loggers through it) while the library runs every path with a
 * password in its URL, and while it fails: a wrong password, a refused connection, a TLS handshake
 * with an untrusted server, a lock lease lost under its watchdog and a worker's job lease lost.
 * Neither the password nor any token minted during the run may appear in what was printed.
 */
@org.junit.jupiter.api.Tag("standalone-only")   // sets requirepass on one server (docs/scaling.md)
@Timeout(180)
class SecretsInLogsTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void noPasswordOrTokenIsEverPrinted() throws Exception {
        String password = "pw-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(12));
        List<String> tokens = new ArrayList<>();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = System.out;
        PrintStream err = System.err;
        System.setOut(new PrintStream(new Tee(out, printed), true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(new Tee(err, printed), true, StandardCharsets.UTF_8));
        raw().call("CONFIG", "SET", "requirepass", password);
        try {
            String url = "redis://:" + password + "@127.0.0.1:" + REDIS.server().port();
            try (LockClient locks = LockClient.create(url); QueueClient queues = QueueClient.create(url)) {
                Flows.locks(locks, server());
                Flows.queues(queues, server());
                tokens.addAll(leaseLostUnderItsWatchdog(locks));
                jobLeaseLostInAWorker(queues);
            }
            failures(password);
            System.err.println("tokens minted: " + tokens.size());
        } finally {
            System.setOut(out);
            System.setErr(err);
            try (RawRedis admin = RawRedis.connect("127.0.0.1", REDIS.server().port())) {
                admin.call("AUTH", password);
                admin.call("CONFIG", "SET", "requirepass", "");
            }
        }
        String text = printed.toString(StandardCharsets.UTF_8);
        assertThat(text).as("the capture works: INFO lines of the worker were printed")
                .contains(" started as ").contains(": concurrency").contains("stopped");
        assertThat(text).as("a WARN about the lost job lease was printed").contains("lost");
        assertThat(text).doesNotContain(password);
        assertThat(tokens).isNotEmpty().allSatisfy(t -> assertThat(text).doesNotContain(t));
    }

    /** A watched lease whose key another client deletes: its watchdog finds it gone and it is lost. */
    private List<String> leaseLostUnderItsWatchdog(LockClient locks) {
        List<String> tokens = new ArrayList<>();
        Lease lease = locks.tryAcquire("secret-lease", Duration.ofMillis(300),
                AcquireOptions.defaults().withWatchdog()).orElseThrow();
        tokens.add(lease.token());
        Lease other = locks.tryAcquire("secret-other", Duration.ofSeconds(30)).orElseThrow();
        tokens.add(other.token());
        raw().call("DEL", "emq:lock:{secret-lease}:lock");
        await().atMost(Duration.ofSeconds(10)).until(lease::isLost);
        other.release();
        return tokens;
    }

    /** A worker whose running job is removed by force: its next renewal loses the lease and it warns. */
    private void jobLeaseLostInAWorker(QueueClient queues) throws Exception {
        Queue q = queues.queue("secret-q");
        CountDownLatch running = new CountDownLatch(1);
        String id = q.enqueue("x");
        try (Worker w = queues.worker("secret-q", job -> {
            running.countDown();
            job.stopSignal().get(20, TimeUnit.SECONDS);   // runs until the worker asks it to stop
        }).lease(Duration.ofMillis(300)).start()) {
            assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
            q.remove(id, true);
            await().atMost(Duration.ofSeconds(10)).until(() -> w.counts().leaseLost() > 0);
        }
    }

    private static void failures(String password) throws Exception {
        int port = REDIS.server().port();
        String wrong = "redis://:" + password + "-wrong@127.0.0.1:" + port;
        assertThatThrownBy(() -> LockClient.create(wrong)).isInstanceOf(RedisCommandException.class);
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        String refused = "redis://:" + password + "@127.0.0.1:" + closed;
        assertThatThrownBy(() -> QueueClient.create(refused)).isInstanceOf(RedisCommandException.class);
        TestCertificates certs = TestCertificates.generate("secrets CA");
        try (TlsRedisServer tls = TlsRedisServer.start(certs)) {
            String untrusted = "rediss://:" + password + "@127.0.0.1:" + tls.port();
            assertThatThrownBy(() -> LockClient.builder().redisUrl(untrusted).commandTimeout(Duration.ofSeconds(3))
                    .build()).isInstanceOf(RedisCommandException.class)
                    .satisfies(e -> System.err.println("caught: " + AuthAclTest.allMessages(e)));
        } finally {
            certs.delete();
        }
    }

    private static RawRedis raw() {
        return REDIS.raw();
    }

    /** The product and version the server under test reports in INFO server, for example "Valkey 8.0.1". */
    private static String server() {
        return REDIS.server().product() + " " + REDIS.server().version();
    }

    /** Writes to the real stream and to the capture. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public synchronized void write(int c) throws java.io.IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public synchronized void write(byte[] buf, int off, int len) throws java.io.IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }

        @Override
        public synchronized void flush() throws java.io.IOException {
            a.flush();
            b.flush();
        }
    }
}
