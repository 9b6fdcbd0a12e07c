package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * On a JVM with virtual threads, a worker given no executor runs each job on a virtual thread
 * named {@code <worker>-handler-<n>}, as its platform threads are named on Java 17. Tagged
 * {@code jdk21}: excluded by default (on JDK 17 it would fail, not skip), run by {@code .ci/run}'s
 * JDK 25 pass.
 */
@Tag("jdk21")
@Timeout(60)
class VirtualHandlerThreadsTest extends QueueTestBase {
    private static final Duration WAIT = Duration.ofSeconds(15);

    /** A handler's view of its own thread. */
    record Seen(String name, boolean virtual) {
    }

    static boolean isVirtual(Thread t) {
        try {
            return (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("no Thread.isVirtual: this test needs JDK 21 or later", e);
        }
    }

    @Test
    void handlersRunOnVirtualThreadsNamedForTheirWorker() {
        List<Seen> seen = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 5; i++) {
            queue.enqueue("job-" + i);
        }
        try (Worker w = client.worker("q", job -> {
            Thread t = Thread.currentThread();
            seen.add(new Seen(t.getName(), isVirtual(t)));
        }).concurrency(2).start()) {
            await().atMost(WAIT).until(() -> seen.size() == 5);
            assertThat(seen).allSatisfy(s -> {
                assertThat(s.virtual()).as("virtual: %s", s.name()).isTrue();
                assertThat(s.name()).matches(HandlerThreadsTest.quoted(w + "-handler-") + "[1-9][0-9]*");
            });
        }
    }
}
