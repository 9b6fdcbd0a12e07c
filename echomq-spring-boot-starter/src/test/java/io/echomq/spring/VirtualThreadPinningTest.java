package io.echomq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.Locks;
import io.echomq.queue.Job;
import io.echomq.spring.lock.Locked;
import io.echomq.spring.lock.WhenBusy;
import io.echomq.spring.queue.EchoJobHandler;
import io.echomq.spring.queue.EchoMQTemplate;
import io.echomq.testkit.RedisExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Waiting on Redis from a virtual thread does not pin its carrier. A JFR recording of
 * {@code jdk.VirtualThreadPinned} events, threshold 0 ms (every pinned park), runs while, with
 * {@code spring.threads.virtual.enabled=true}:
 * <ul>
 *   <li>a plain virtual thread waits in {@code acquire} for a lock another client holds (woken by
 *       the release message);</li>
 *   <li>{@code @EchoJobHandler} handlers wait in {@code acquire} for a held lock, then extend
 *       their lease and report progress, and finish jobs (the worker's complete-and-claim-next
 *       path, which a handler's thread waits on);</li>
 *   <li>a {@code @Scheduled @Locked(whenBusy = WAIT)} method, on Boot's virtual-thread scheduler,
 *       waits for a held lock;</li>
 *   <li>virtual threads queue for one {@code @Locked(whenBusy = WAIT)} method (the client's
 *       in-process handoff).</li>
 * </ul>
 * The recording must hold no pinned event but the one this test makes on purpose (a virtual
 * thread parking inside a class initializer, which pins on every JDK), so it is shown to see
 * pinning when there is some, and those of class loading: the JVM loads a class on first use
 * through a call from the VM, which a virtual thread cannot leave, so two virtual threads that
 * first use one class at once pin while one waits for the other's load. That happens once per
 * class, whatever the class does, and is no wait on Redis; such events are printed, not counted.
 * Tagged {@code jdk21}: run by {@code .ci/run}'s JDK 25 pass.
 *
 * <p>Note that JDK 24 and later no longer pin a virtual thread that blocks inside
 * {@code synchronized} (JEP 491), so on JDK 25 this test cannot see that kind of pinning, which
 * JDK 21 to 23 have; on those JDKs it would.
 */
@Tag("jdk21")
class VirtualThreadPinningTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    static final Duration TTL = Duration.ofSeconds(10);
    static final Duration WAIT = Duration.ofSeconds(20);
    static final int LOCKING_JOBS = 4;
    static final int PLAIN_JOBS = 40;

    static final List<Boolean> VIRTUAL = new CopyOnWriteArrayList<>();
    static final AtomicInteger HANDLERS_WAITING = new AtomicInteger();
    static final AtomicInteger HANDLED = new AtomicInteger();
    static final AtomicInteger SCHEDULED_RUNS = new AtomicInteger();
    static final AtomicInteger RUNNING = new AtomicInteger();
    static final AtomicInteger MOST_AT_ONCE = new AtomicInteger();

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    static class App {
        @Bean
        Work work(Locks locks) {
            return new Work(locks);
        }
    }

    public static class Work {
        private final Locks locks;

        Work(Locks locks) {
            this.locks = locks;
        }

        @EchoJobHandler(queue = "pinning", concurrency = LOCKING_JOBS, lease = "5s")
        public void handle(String text, Job job) throws Exception {
            VIRTUAL.add(VirtualThreadsTest.isVirtual(Thread.currentThread()));
            if (text.startsWith("lock")) {
                HANDLERS_WAITING.incrementAndGet();
                try (Lease lease = locks.acquire("pinning-handler", TTL, WAIT)) {
                    assertThat(job.extend(Duration.ofSeconds(5))).isTrue();
                    assertThat(job.progress("locked with fence " + lease.fence())).isTrue();
                }
            }
            HANDLED.incrementAndGet();
        }

        @Scheduled(fixedDelay = 20)
        @Locked(value = "'pinning-scheduled'", whenBusy = WhenBusy.WAIT, maxWait = "20s")
        public void scheduled() {
            VIRTUAL.add(VirtualThreadsTest.isVirtual(Thread.currentThread()));
            SCHEDULED_RUNS.incrementAndGet();
        }

        @Locked(value = "'pinning-exclusive'", whenBusy = WhenBusy.WAIT, maxWait = "30s")
        public void exclusive() throws InterruptedException {
            VIRTUAL.add(VirtualThreadsTest.isVirtual(Thread.currentThread()));
            MOST_AT_ONCE.accumulateAndGet(RUNNING.incrementAndGet(), Math::max);
            Thread.sleep(2);
            RUNNING.decrementAndGet();
        }
    }

    /** Parks in its initializer: a virtual thread that initializes it is pinned, on every JDK. */
    static final class PinsOnPurpose {
        static {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }

        static void touch() {
        }
    }

    @Test
    void waitingOnRedisFromVirtualThreadsDoesNotPin() throws Exception {
        List<RecordedEvent> pinned;
        VirtualThreadsTest.isVirtual(Thread.currentThread());   // loaded now, not by four handlers at once
        Path file = Files.createTempFile("echomq-pinning", ".jfr");
        try (Recording recording = new Recording();
             LockClient other = LockClient.create(REDIS.url())) {
            recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
            recording.start();
            Lease handlerLock = other.acquire("pinning-handler", TTL, Duration.ZERO);
            Lease scheduledLock = other.acquire("pinning-scheduled", TTL, Duration.ZERO);
            Lease plainLock = other.acquire("pinning-plain", TTL, Duration.ZERO);
            try (ConfigurableApplicationContext ctx = TestApps.start(App.class, REDIS.url(),
                    "spring.threads.virtual.enabled=true")) {
                Locks locks = ctx.getBean(Locks.class);
                ThreadFactory virtualThreads = virtualThreadFactory();
                AtomicReference<Long> plainFence = new AtomicReference<>();
                Thread plain = virtualThreads.newThread(() -> {
                    try (Lease lease = locks.acquire("pinning-plain", TTL, WAIT)) {
                        plainFence.set(lease.fence());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                plain.start();
                EchoMQTemplate template = ctx.getBean(EchoMQTemplate.class);
                for (int i = 0; i < LOCKING_JOBS; i++) {
                    template.enqueue("pinning", "lock-" + i);
                }
                for (int i = 0; i < PLAIN_JOBS; i++) {
                    template.enqueue("pinning", "plain-" + i);
                }

                // Every waiter is parked on Redis now; then the holder lets go, and each gets its turn.
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    assertThat(HANDLERS_WAITING.get()).as("handlers waiting").isEqualTo(LOCKING_JOBS);
                    assertThat(plain.getState()).as("the plain acquire").isIn(Thread.State.WAITING, Thread.State.TIMED_WAITING);
                });
                assertThat(SCHEDULED_RUNS.get()).isZero();
                handlerLock.release();
                scheduledLock.release();
                plainLock.release();
                await().atMost(Duration.ofSeconds(20)).until(() -> HANDLED.get() == LOCKING_JOBS + PLAIN_JOBS
                        && SCHEDULED_RUNS.get() > 0 && plainFence.get() != null);

                Work work = ctx.getBean(Work.class);
                List<Future<?>> calls = new ArrayList<>();
                ExecutorService contenders = (ExecutorService) Executors.class
                        .getMethod("newThreadPerTaskExecutor", ThreadFactory.class).invoke(null, virtualThreads);
                try {
                    for (int i = 0; i < 20; i++) {
                        calls.add(contenders.submit(() -> {
                            work.exclusive();
                            return null;
                        }));
                    }
                    for (Future<?> call : calls) {
                        call.get(60, TimeUnit.SECONDS);
                    }
                } finally {
                    contenders.shutdownNow();
                }
                plain.join();
            }
            Thread control = virtualThreadFactory().newThread(PinsOnPurpose::touch);
            control.start();
            control.join();
            recording.stop();
            recording.dump(file);
            // only the pinned events: a new recording also takes every custom event enabled by
            // default, such as Lettuce's connection events
            pinned = RecordingFile.readAllEvents(file).stream()
                    .filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned")).toList();
        } finally {
            Files.deleteIfExists(file);
        }

        assertThat(VIRTUAL).hasSizeGreaterThanOrEqualTo(LOCKING_JOBS + PLAIN_JOBS + 1 + 20).containsOnly(true);
        assertThat(MOST_AT_ONCE.get()).isEqualTo(1);
        List<RecordedEvent> onPurpose = pinned.stream().filter(VirtualThreadPinningTest::isOnPurpose).toList();
        assertThat(onPurpose).as("the recording sees the pinning made on purpose").hasSize(1);
        List<RecordedEvent> loading = pinned.stream().filter(VirtualThreadPinningTest::isClassLoading).toList();
        if (!loading.isEmpty()) {
            System.out.printf("VirtualThreadPinningTest: %d pinned while loading a class, not counted:%n%s%n",
                    loading.size(), describe(loading));
        }
        List<RecordedEvent> others = pinned.stream().filter(e -> !isOnPurpose(e) && !isClassLoading(e)).toList();
        assertThat(others).as("pinned while waiting:%n%s", describe(others)).isEmpty();
    }

    /**
     * @return whether the event's thread was pinned inside a class load: the frames above the first
     *     one outside the JDK's own packages include {@code ClassLoader.loadClass}, so the wait was
     *     the JVM's, for a class, not one the application's code began
     */
    private static boolean isClassLoading(RecordedEvent e) {
        if (e.getStackTrace() == null) {
            return false;
        }
        for (RecordedFrame f : e.getStackTrace().getFrames()) {
            String type = f.getMethod().getType().getName();
            if (type.equals("java.lang.ClassLoader") && f.getMethod().getName().equals("loadClass")) {
                return true;
            }
            if (!type.startsWith("java.") && !type.startsWith("jdk.") && !type.startsWith("sun.")) {
                return false;
            }
        }
        return false;
    }

    private static boolean isOnPurpose(RecordedEvent e) {
        return e.getStackTrace() != null && e.getStackTrace().getFrames().stream()
                .anyMatch(f -> f.getMethod().getType().getName().equals(PinsOnPurpose.class.getName()));
    }

    private static String describe(List<RecordedEvent> events) {
        return events.stream().map(e -> field(e, "pinnedReason") + " (" + field(e, "blockingOperation") + ") on "
                + e.getThread("eventThread").getJavaName() + "\n"
                + (e.getStackTrace() == null ? "  (no stack)" : e.getStackTrace().getFrames().stream()
                        .map(VirtualThreadPinningTest::frame).collect(Collectors.joining("\n"))))
                .collect(Collectors.joining("\n\n"));
    }

    /** @return a field JDK 24 added to the event, or "" on an older JDK */
    private static String field(RecordedEvent e, String name) {
        return e.hasField(name) ? e.getString(name) : "";
    }

    private static String frame(RecordedFrame f) {
        return "  " + f.getMethod().getType().getName() + "." + f.getMethod().getName() + " line " + f.getLineNumber();
    }

    /** {@code Thread.ofVirtual().factory()}, reflectively: the module is built for Java 17. */
    private static ThreadFactory virtualThreadFactory() throws ReflectiveOperationException {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
    }
}
