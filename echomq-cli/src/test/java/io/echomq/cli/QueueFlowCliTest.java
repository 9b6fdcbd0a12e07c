package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.RateLimit;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code emq queue limit} and {@code emq queue cap} against a real server: show, set, clear, refuse. */
@Timeout(60)
class QueueFlowCliTest extends QueueCliTestBase {
    @Test
    void limitShowsSetsAndClears() {
        client.queue("q").enqueue("x");
        assertThat(emq("queue", "limit", "q")).isEqualTo(new EmqRun(0, "limit=none\n", ""));
        assertThat(emq("queue", "limit", "q", "50/1s")).isEqualTo(new EmqRun(0, "limit=50/1000ms\n", ""));
        assertThat(client.queue("q").flowControl().rateLimit()).contains(new RateLimit(50, Duration.ofSeconds(1)));
        assertThat(emq("queue", "limit", "q", "600/2m")).isEqualTo(new EmqRun(0, "limit=600/120000ms\n", ""));
        assertThat(emq("queue", "limit", "q", "7/250")).isEqualTo(new EmqRun(0, "limit=7/250ms\n", ""));
        assertThat(emq("queue", "limit", "q")).isEqualTo(new EmqRun(0, "limit=7/250ms\n", ""));
        assertThat(emq("queue", "limit", "q", "off")).isEqualTo(new EmqRun(0, "CLEARED\n", ""));
        assertThat(emq("queue", "limit", "q", "off")).isEqualTo(new EmqRun(0, "NOT_SET\n", ""));
        assertThat(emq("queue", "limit", "q")).isEqualTo(new EmqRun(0, "limit=none\n", ""));
    }

    @Test
    void capShowsSetsAndClears() {
        client.queue("q").enqueue("x");
        assertThat(emq("queue", "cap", "q")).isEqualTo(new EmqRun(0, "cap=none\n", ""));
        assertThat(emq("queue", "cap", "q", "3")).isEqualTo(new EmqRun(0, "cap=3\n", ""));
        assertThat(client.queue("q").flowControl().concurrencyCap()).isEqualTo(OptionalInt.of(3));
        assertThat(emq("queue", "cap", "q")).isEqualTo(new EmqRun(0, "cap=3\n", ""));
        assertThat(emq("queue", "cap", "q", "off")).isEqualTo(new EmqRun(0, "CLEARED\n", ""));
        assertThat(emq("queue", "cap", "q", "off")).isEqualTo(new EmqRun(0, "NOT_SET\n", ""));
    }

    @Test
    void badLimitsAndCapsExit2WithNothingWritten() {
        EmqRun zero = emq("queue", "limit", "q", "0/1s");
        assertThat(zero.code()).isEqualTo(2);
        assertThat(zero.err()).contains("Invalid value for option '<n>': 0 is outside 1..1000000 jobs");
        EmqRun window = emq("queue", "limit", "q", "5/0s");
        assertThat(window.code()).isEqualTo(2);
        assertThat(window.err()).contains("Invalid value for <window>: '0s' is outside 1 ms..1 day");
        assertThat(emq("queue", "limit", "q", "5/2d").code()).isEqualTo(2);
        assertThat(emq("queue", "limit", "q", "5/25h").code()).isEqualTo(2);
        assertThat(emq("queue", "limit", "q", "-5/1s").code()).isEqualTo(2);
        assertThat(emq("queue", "limit", "q", "fast").err()).contains("is not <n>/<window> (for example 50/1s) or off");
        EmqRun cap = emq("queue", "cap", "q", "0");
        assertThat(cap.code()).isEqualTo(2);
        assertThat(cap.err()).contains("Invalid value for option '<k>': 0 is outside 1..1000000 jobs");
        assertThat(emq("queue", "cap", "q", "-3").code()).isEqualTo(2);
        assertThat(emq("queue", "cap", "q", "many").err()).contains("is not a whole number of jobs, nor off");
        assertThat(REDIS.raw().call("DBSIZE")).isEqualTo(0L);
    }

    @Test
    void statsShowsTheFlowSettingsAndWhatThrottlesClaimsNow() {
        Queue q = client.queue("q");
        q.enqueue("a");
        q.enqueue("b");
        assertThat(emq("queue", "stats", "q").out()).endsWith(" limit=none cap=none throttled=no\n");

        q.flowControl().setConcurrencyCap(1);
        Job held = q.claim(Duration.ofSeconds(30)).orElseThrow();
        assertThat(emq("queue", "stats", "q").out()).contains(" active=1 ").endsWith(" limit=none cap=1 throttled=cap\n");
        held.complete();
        assertThat(emq("queue", "stats", "q").out()).endsWith(" limit=none cap=1 throttled=no\n");

        q.flowControl().clearConcurrencyCap();
        q.flowControl().setRateLimit(1, Duration.ofHours(1));
        assertThat(q.claim(Duration.ofSeconds(30))).as("the window's one claim").isPresent();
        assertThat(emq("queue", "stats", "q").out()).endsWith(" limit=1/3600000ms cap=none throttled=rate\n");
    }

    @Test
    void showPrintsTheSettingsAndWhatThrottlesNowOneKeyPerLine() {
        Queue q = client.queue("q");
        q.enqueue("a");
        assertThat(emq("queue", "show", "q").out()).isEqualTo("""
                partitions=1
                paused=0
                throttled=no
                limit=none
                started-in-window=0
                cap=none active=0
                timeout=none
                layout=list
                retention=none
                events=on max=10000 enqueued=off
                last-action=none
                """);

        assertThat(emq("queue", "cap", "q", "1").code()).isZero();
        assertThat(emq("queue", "limit", "q", "5/1m").code()).isZero();
        assertThat(emq("queue", "timeout", "q", "30000").code()).isZero();
        q.claim(Duration.ofSeconds(30)).orElseThrow();
        String shown = emq("queue", "show", "q").out();
        assertThat(shown).contains("\nthrottled=cap (cap 1 of 1 active)\n", "\nlimit=5/60000ms\n",
                "\nstarted-in-window=1\n", "\ncap=1 active=1\n", "\ntimeout=30000ms\n");
        assertThat(shown).containsPattern("\nlast-action=\\S+Z rate-limit-set by emq \\S+ pid \\d+\n");
        assertThat(emq("queue", "show", "nope").code()).as("an unknown queue").isEqualTo(2);
    }
}
