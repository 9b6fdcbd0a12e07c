package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker given no executor names every handler thread {@code <worker>-handler-<n>}, on whatever
 * threads this JVM gives it (platform threads on Java 17, virtual threads on 21+; see
 * {@link VirtualHandlerThreadsTest}), so a handler's log lines say which worker ran them.
 */
@Timeout(60)
class HandlerThreadsTest extends QueueTestBase {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void handlerThreadsAreNamedForTheirWorker() {
        List<String> names = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 5; i++) {
            queue.enqueue("job-" + i);
        }
        try (Worker w = client.worker("q", job -> names.add(Thread.currentThread().getName()))
                .concurrency(2).start()) {
            await().atMost(WAIT).until(() -> names.size() == 5);
            assertThat(w.toString()).startsWith("emq-worker-q-");
            assertThat(names).allSatisfy(n -> assertThat(n).matches(quoted(w + "-handler-") + "[1-9][0-9]*"));
        }
    }

    static String quoted(String literal) {
        return java.util.regex.Pattern.quote(literal);
    }
}
