package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code emq top --once} against a real server: every queue with its counts, its oldest pending job's age and its
 * state (paused, throttled by its rate limit or its cap, ok); an empty server says so; bad options exit 2.
 */
@Timeout(60)
class TopCommandTest extends QueueCliTestBase {
    private static String line(EmqRun run, String queue) {
        return Arrays.stream(run.out().split("\n")).filter(l -> l.startsWith(queue + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no line for " + queue + " in:\n" + run.out()));
    }

    private static List<String> cells(String line) {
        return List.of(line.trim().split("\\s+", 9));
    }

    @Test
    void everyQueueWithItsCountsOldestJobAndState() throws InterruptedException {
        Queue emails = client.queue("emails");
        emails.enqueue("a");
        Thread.sleep(1100);   // the oldest job's age reads 1s or more
        emails.enqueue("b");
        Queue payments = client.queue("payments");
        payments.enqueue("p");
        payments.pause();
        Queue capped = client.queue("capped");
        capped.flowControl().setConcurrencyCap(1);
        capped.enqueue("c1");
        capped.enqueue("c2");
        Job running = capped.claim(Duration.ofSeconds(30)).orElseThrow();
        Queue limited = client.queue("limited");
        limited.flowControl().setRateLimit(1, Duration.ofMinutes(1));
        limited.enqueue("l1");
        limited.enqueue("l2");
        limited.claim(Duration.ofSeconds(30)).orElseThrow().complete();

        EmqRun run = emq("top", "--once");
        assertThat(run.code()).as("%s", run).isZero();
        assertThat(run.out()).startsWith("emq top  redis://").contains("4 queues\n");
        assertThat(run.out().split("\n")[1]).matches("QUEUE +PENDING +ACTIVE +DELAYED +DEAD +DONE/MIN +FAILED/MIN +OLDEST +STATE");

        List<String> e = cells(line(run, "emails"));
        assertThat(e.subList(0, 5)).containsExactly("emails", "2", "0", "0", "0");
        assertThat(e.get(7)).matches("[1-9]\\d*s");
        assertThat(e.get(8)).isEqualTo("ok");
        assertThat(cells(line(run, "payments")).get(8)).isEqualTo("paused");
        assertThat(cells(line(run, "capped")).get(8)).isEqualTo("throttled (cap 1 of 1 active)");
        assertThat(cells(line(run, "limited")).get(8)).startsWith("throttled (rate limit 1 per PT1M reached)");
        assertThat(cells(line(run, "limited")).get(7)).as("one job still waits").isNotEqualTo("-");
        running.complete();

        EmqRun after = emq("top", "--once");
        assertThat(cells(line(after, "capped")).get(8)).isEqualTo("ok");
        assertThat(cells(line(after, "payments")).subList(1, 3)).containsExactly("1", "0");
    }

    @Test
    void moreQueuesThanShownAreCountedAndAnEmptyServerSaysSo() {
        EmqRun none = emq("top", "--once");
        assertThat(none.code()).isZero();
        assertThat(none.out()).contains("0 queues\n").contains("no queue on this server yet");
        for (String q : List.of("q1", "q2", "q3")) {
            client.queue(q).enqueue("x");
        }
        EmqRun two = emq("top", "--once", "--max", "2");
        assertThat(two.out()).contains("q1 ").contains("q2 ").doesNotContain("q3 ").contains("… and 1 more (--max)");
        assertThat(cells(line(two, "q1")).get(5)).as("no worker recorded a minute yet").isEqualTo("-");
    }

    @Test
    void badOptionsExit2() {
        assertThat(emq("top", "--once", "--interval", "100ms").code()).isEqualTo(2);
        assertThat(emq("top", "--once", "--interval", "soon").err()).contains("is no duration");
        assertThat(emq("top", "--once", "--max", "0").code()).isEqualTo(2);
    }
}
