package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker logs each failed job once at WARN (id, attempt, outcome, a one-line summary), so a
 * failing handler is visible without a listener; {@code logFailures(false)} switches it off. The
 * tests' SLF4J binding (slf4j-simple) prints to {@code System.err}, which is captured here.
 */
@Timeout(60)
class FailureLogTest extends SemanticsTestBase {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void eachFailedAttemptIsLoggedOnceWithItsOutcomeAndTheFirstLineOfItsError() throws Exception {
        EnqueueOptions twice = EnqueueOptions.defaults().withMaxAttempts(2)
                .withBackoff(Duration.ofMillis(10), Duration.ofMillis(10));
        String flaky = queue.enqueue("flaky", twice).id();
        String poison = queue.enqueue("poison", EnqueueOptions.defaults()).id();
        String fine = queue.enqueue("fine", EnqueueOptions.defaults()).id();

        String printed = captureStderr(() -> {
            try (Worker w = client.worker("q", job -> {
                switch (job.payloadUtf8()) {
                    case "flaky" -> throw new IllegalStateException("smtp refused\n\tat some.Frame");
                    case "poison" -> throw new NonRetryableException("bad address");
                    default -> { }
                }
            }).concurrency(2).start()) {
                await().atMost(WAIT).until(() -> w.counts().dead() == 2 && w.counts().completed() == 1);
            }
        });

        List<String> lines = printed.lines().filter(l -> l.contains(" failed, ")).toList();
        assertThat(lines).as("one line per failed attempt, none for the completed job").hasSize(3);
        assertThat(lines).filteredOn(l -> l.contains("job " + flaky + " attempt 1 failed, will retry: "
                + "java.lang.IllegalStateException: smtp refused")).hasSize(1);
        assertThat(lines).filteredOn(l -> l.contains("job " + flaky + " attempt 2 failed, dead: "
                + "java.lang.IllegalStateException: smtp refused")).hasSize(1);
        assertThat(lines).filteredOn(l -> l.contains("job " + poison + " attempt 1 failed, dead: "
                + "io.echomq.queue.NonRetryableException: bad address")).hasSize(1);
        assertThat(lines).allSatisfy(l -> assertThat(l).contains("WARN").doesNotContain("some.Frame"));
        assertThat(printed).doesNotContain("job " + fine + " attempt");
    }

    @Test
    void aJobTheHandlerFailsItselfIsLoggedWithTheFirstAndLastLineOfItsText() throws Exception {
        String id = queue.enqueue("x", EnqueueOptions.defaults().withMaxAttempts(1)).id();
        String traced = queue.enqueue("y", EnqueueOptions.defaults().withMaxAttempts(1)).id();
        String printed = captureStderr(() -> {
            try (Worker w = client.worker("q", job -> {
                if (job.id().equals(id)) {
                    job.fail("smtp refused\nconnection reset\nexit status 3");   // as emq worker --exec does
                } else {
                    job.fail(new IllegalStateException("no route"));              // a stack trace as the text
                }
            }).start()) {
                await().atMost(WAIT).until(() -> w.counts().dead() == 2);
            }
        });
        assertThat(printed).contains("job " + id + " attempt 1 failed, dead: smtp refused … exit status 3");
        assertThat(printed).contains("job " + traced + " attempt 1 failed, dead: java.lang.IllegalStateException: no route\n")
                .doesNotContain("failed, dead: java.lang.IllegalStateException: no route … at ");
    }

    @Test
    void aWorkerBuiltWithLogFailuresOffLogsNoFailure() throws Exception {
        String id = queue.enqueue("x", EnqueueOptions.defaults().withMaxAttempts(1)).id();
        String printed = captureStderr(() -> {
            try (Worker w = client.worker("q", job -> {
                throw new IllegalStateException("quiet failure");
            }).logFailures(false).start()) {
                await().atMost(WAIT).until(() -> w.counts().dead() == 1);
            }
        });
        assertThat(queue.inspect(id).orElseThrow().state()).isEqualTo("dead");
        assertThat(printed).as("the capture works: the worker's start line was printed").contains("started");
        assertThat(printed).doesNotContain("quiet failure").doesNotContain(" failed, ");
    }

    /** Runs {@code body} with {@code System.err} copied into the returned text. */
    private static String captureStderr(ThrowingRunnable body) throws Exception {
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(new Tee(err, copy::writeBytes), true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setErr(err);
        }
        return copy.toString(StandardCharsets.UTF_8);
    }

    private interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Writes to the real stream and to the copy. */
    private static final class Tee extends OutputStream {
        private final OutputStream real;
        private final Consumer<byte[]> copy;

        Tee(OutputStream real, Consumer<byte[]> copy) {
            this.real = real;
            this.copy = copy;
        }

        @Override
        public void write(int b) throws java.io.IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws java.io.IOException {
            real.write(b, off, len);
            copy.accept(java.util.Arrays.copyOfRange(b, off, off + len));
        }
    }
}
