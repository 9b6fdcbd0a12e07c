package io.echomq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.spring.lock.Locked;
import io.echomq.spring.lock.WhenBusy;
import io.echomq.spring.queue.EchoJobHandler;
import io.echomq.spring.queue.EchoMQTemplate;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
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
 * Spring Boot's {@code spring.threads.virtual.enabled} switches EchoMQ's handlers, with no EchoMQ
 * property: when true on a JDK that has virtual threads, handlers and {@code @Locked} scheduled
 * methods run on virtual threads, and many virtual threads waiting for one lock all get it in
 * turn; when absent, handlers run on platform threads although the JDK has virtual threads.
 * Tagged {@code jdk21}: excluded on JDK 17 (where it would fail, not skip), run by
 * {@code .ci/run}'s JDK 25 pass. {@link VirtualThreadPinningTest} checks that their waits do not pin.
 */
@Tag("jdk21")
class VirtualThreadsTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    static final List<Boolean> HANDLER_THREADS = new CopyOnWriteArrayList<>();
    static final List<String> HANDLER_THREAD_NAMES = new CopyOnWriteArrayList<>();
    static final List<Boolean> SCHEDULED_THREADS = new CopyOnWriteArrayList<>();
    static final AtomicInteger RUNNING = new AtomicInteger();
    static final AtomicInteger MOST_AT_ONCE = new AtomicInteger();

    static boolean isVirtual(Thread t) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("no Thread.isVirtual: this test needs JDK 21 or later", e);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    static class App {
        @Bean
        Beans beans() {
            return new Beans();
        }
    }

    public static class Beans {
        @EchoJobHandler(queue = "virtual")
        public void handle(String text) {
            HANDLER_THREADS.add(isVirtual(Thread.currentThread()));
            HANDLER_THREAD_NAMES.add(Thread.currentThread().getName());
        }

        @Scheduled(fixedDelay = 20)
        @Locked("'virtual-scheduled'")
        public void scheduled() {
            SCHEDULED_THREADS.add(isVirtual(Thread.currentThread()));
        }

        @Locked(value = "'virtual-wait'", whenBusy = WhenBusy.WAIT, maxWait = "30s")
        public void exclusive() throws InterruptedException {
            int now = RUNNING.incrementAndGet();
            MOST_AT_ONCE.accumulateAndGet(now, Math::max);
            Thread.sleep(2);
            RUNNING.decrementAndGet();
        }
    }

    @BeforeEach
    void clear() {
        HANDLER_THREADS.clear();
        HANDLER_THREAD_NAMES.clear();
        SCHEDULED_THREADS.clear();
    }

    @Test
    void handlersAndLockedMethodsRunOnVirtualThreads() throws Exception {
        try (ConfigurableApplicationContext ctx = TestApps.start(App.class, REDIS.url(), "spring.threads.virtual.enabled=true")) {
            ctx.getBean(EchoMQTemplate.class).enqueue("virtual", "a");
            await().atMost(Duration.ofSeconds(10)).until(() -> !HANDLER_THREADS.isEmpty() && !SCHEDULED_THREADS.isEmpty());
            assertThat(HANDLER_THREADS).containsOnly(true);
            assertThat(HANDLER_THREAD_NAMES).allMatch(n -> n.startsWith("emq-handler-virtual-"));
            assertThat(SCHEDULED_THREADS).containsOnly(true);

            Beans beans = ctx.getBean(Beans.class);
            ExecutorService virtualThreads = (ExecutorService) Executors.class
                    .getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
            try {
                List<Future<?>> calls = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    calls.add(virtualThreads.submit(() -> {
                        beans.exclusive();
                        return null;
                    }));
                }
                for (Future<?> call : calls) {
                    call.get(60, TimeUnit.SECONDS);
                }
            } finally {
                virtualThreads.shutdownNow();
            }
            assertThat(MOST_AT_ONCE.get()).isEqualTo(1);
        }
    }

    /** Without the property, Boot's default, the handlers stay on platform threads on this JDK too. */
    @Test
    void withoutThePropertyHandlersRunOnPlatformThreads() {
        try (ConfigurableApplicationContext ctx = TestApps.start(App.class, REDIS.url())) {
            ctx.getBean(EchoMQTemplate.class).enqueue("virtual", "b");
            await().atMost(Duration.ofSeconds(10)).until(() -> !HANDLER_THREADS.isEmpty() && !SCHEDULED_THREADS.isEmpty());
            assertThat(HANDLER_THREADS).containsOnly(false);
            assertThat(HANDLER_THREAD_NAMES).allMatch(n -> n.startsWith("emq-handler-virtual-"));
            assertThat(SCHEDULED_THREADS).containsOnly(false);
        }
    }
}
