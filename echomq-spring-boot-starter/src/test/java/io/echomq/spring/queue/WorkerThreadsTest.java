package io.echomq.spring.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/**
 * The choice of handler threads from {@code spring.threads.virtual.enabled} and the JVM. No Redis:
 * it runs on every JDK, so the JDK 17 passes check the fallback and its notice, and the JDK 25
 * pass the virtual threads.
 */
class WorkerThreadsTest {

    @Test
    void thePropertyOnAJvmWithoutVirtualThreadsGivesPlatformThreadsAndSaysWhy() throws Exception {
        WorkerThreads threads = new WorkerThreads(true, false);
        assertThat(threads.virtual()).isFalse();
        assertThat(threads.notice()).contains("spring.threads.virtual.enabled=true", "Java 21");
        Thread t = threadOf(threads.create("mail", 2));
        assertThat(isVirtual(t)).isFalse();
        assertThat(t.isDaemon()).isTrue();
        assertThat(t.getName()).isEqualTo("emq-handler-mail-1");
    }

    @Test
    void withoutThePropertyHandlersRunOnPlatformThreadsWhateverTheJvm() throws Exception {
        WorkerThreads threads = WorkerThreads.from(new MockEnvironment());
        assertThat(threads.virtual()).isFalse();
        assertThat(threads.notice()).isNull();
        assertThat(isVirtual(threadOf(threads.create("mail", 1)))).isFalse();
        assertThat(WorkerThreads.from(new MockEnvironment().withProperty(WorkerThreads.PROPERTY, "false")).virtual()).isFalse();
    }

    @Test
    void withThePropertyThisJvmDecides() throws Exception {
        boolean jvmHasThem = Runtime.version().feature() >= 21;
        WorkerThreads threads = WorkerThreads.from(new MockEnvironment().withProperty(WorkerThreads.PROPERTY, "true"));
        assertThat(threads.virtual()).isEqualTo(jvmHasThem);
        assertThat(threads.notice() == null).isEqualTo(jvmHasThem);
        Thread t = threadOf(threads.create("mail", 1));
        assertThat(isVirtual(t)).isEqualTo(jvmHasThem);
        assertThat(t.getName()).isEqualTo("emq-handler-mail-1");
    }

    /** @return the thread the executor ran one task on; the executor is shut down */
    private static Thread threadOf(ExecutorService executor) throws Exception {
        try {
            return executor.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
        } finally {
            executor.shutdownNow();
        }
    }

    private static boolean isVirtual(Thread t) throws ReflectiveOperationException {
        if (Runtime.version().feature() < 21) {
            return false;
        }
        return (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
    }
}
