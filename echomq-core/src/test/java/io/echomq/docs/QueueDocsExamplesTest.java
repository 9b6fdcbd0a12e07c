package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The queue programs of README.md and docs/queue.md, read out of the pages and run exactly as they stand, with the
 * test server's URL as their argument.
 */
class QueueDocsExamplesTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Duration RUN = Duration.ofSeconds(30);

    @BeforeEach
    void flush() {
        REDIS.flushAll();
    }

    @Test
    void quickStartRunsItsJobAndClosesTheWorkerAfterItIsSettled() throws Exception {
        for (DocSnippets.Snippet s : Snippets.named("QueueQuickStart")) {
            REDIS.flushAll();
            List<String> out = ProgramRunner.start(s, REDIS.url()).await(RUN).lines().toList();
            assertThat(out).as(s.toString()).containsExactly("sending 1: {\"to\":\"ada@example.com\"}",
                    "1 done: 1 completed");
        }
    }

    @Test
    void aHandlerThatChecksLeaseLostStopsWhenTheLeaseIsLost() throws Exception {
        ProgramRunner.Run run = ProgramRunner.start(Snippets.named("LeaseLossInAHandler").get(0), REDIS.url());
        // Once the job is active, end its lease on the server, as a long pause past the lease would: the next
        // renewal is refused, and the worker tells the handler.
        await().atMost(RUN).until(() -> Long.valueOf(1).equals(REDIS.raw().call("ZCARD", "emq:{imports}:active")));
        REDIS.raw().call("ZADD", "emq:{imports}:active", "0", "1");
        String out = run.await(RUN);
        assertThat(out).matches("stopped before row ([0-9]+): lease lost\n");
        int row = Integer.parseInt(out.replaceAll("[^0-9]", ""));
        assertThat(row).as("rows done before the loss was seen").isBetween(2, 199);
    }
}
