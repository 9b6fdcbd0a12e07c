package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueRetention;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code emq queue list}, {@code emq queue retention} and {@code emq queue delete} against a real server. */
@Timeout(120)
class QueueListDeleteCliTest extends QueueCliTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);

    private static List<String> lines(String text) {
        return text.isEmpty() ? List.of() : List.of(text.split("\n"));
    }

    private static String nextCursor(EmqRun run) {
        for (String l : lines(run.err())) {
            if (l.startsWith("next=")) {
                return l.substring("next=".length());
            }
        }
        return null;
    }

    @Test
    void listPrintsOneTabSeparatedLinePerJobInClaimOrderAndPagesWithTheCursor() {
        Queue q = client.queue("q");
        String low = q.enqueue("low".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withPriority(-1)).id();
        String plain1 = q.enqueue("a");
        String high = q.enqueue("high".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withPriority(5)).id();
        String plain2 = q.enqueue("b");

        EmqRun all = emq("queue", "list", "q");
        assertThat(all.code()).isZero();
        assertThat(all.err()).isEmpty();
        List<String> got = lines(all.out());
        assertThat(got).extracting(l -> l.split("\t")[0]).containsExactly(high, plain1, plain2, low);
        assertThat(got.get(0).split("\t")).containsExactly(high, "pending", "attempts=0", "priority=5",
                "score=" + (Long.parseLong(high) - 5L * (1L << 42)), "claimed=-", "finished=-");
        assertThat(got.get(1).split("\t")[4]).isEqualTo("score=-");

        List<String> paged = new ArrayList<>();
        EmqRun page = emq("queue", "list", "q", "--limit", "3");
        paged.addAll(lines(page.out()));
        assertThat(paged).hasSize(3);
        String cursor = nextCursor(page);
        assertThat(cursor).isNotNull();
        EmqRun rest = emq("queue", "list", "q", "--limit", "3", "--after", cursor);
        paged.addAll(lines(rest.out()));
        assertThat(nextCursor(rest)).as("the walk is over").isNull();
        assertThat(paged).isEqualTo(got);

        EmqRun walk = emq("queue", "list", "q", "--limit", "1", "--all");
        assertThat(lines(walk.out())).isEqualTo(got);
        assertThat(walk.err()).isEmpty();
    }

    @Test
    void listShowsActiveByDeadlineWithTimes() {
        Queue q = client.queue("q");
        q.enqueue("x");
        Job job = q.claim(LEASE).orElseThrow();
        String[] cols = emq("queue", "list", "q", "--state", "active").out().trim().split("\t");
        assertThat(cols[0]).isEqualTo(job.id());
        assertThat(cols[1]).isEqualTo("active");
        assertThat(cols[2]).isEqualTo("attempts=1");
        assertThat(cols[4]).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
        assertThat(cols[5]).startsWith("claimed=20");
        EmqRun unkept = emq("queue", "list", "q", "--state", "done");
        assertThat(unkept.out()).isEmpty();
        assertThat(unkept.err()).as("says why a queue without retention lists no done job")
                .contains("keeps no completed jobs").contains("emq queue retention q --done-max");
        assertThat(emq("queue", "retention", "q", "--done-max", "1000").code()).isZero();   // keeps the done index
        job.complete();
        EmqRun kept = emq("queue", "list", "q", "--state", "done");
        assertThat(kept.out()).startsWith(job.id() + "\tdone\t");
        assertThat(kept.err()).isEmpty();
    }

    @Test
    void listShowsTheCancelledJobsTheQueueRecords() {
        Queue q = client.queue("q");
        String id = q.enqueue("a");
        q.enqueue("b");
        q.cancel(id);
        EmqRun cancelled = emq("queue", "list", "q", "--state", "cancelled");
        assertThat(cancelled.code()).isZero();
        assertThat(cancelled.out()).startsWith(id + "\tcancelled\t");
        assertThat(cancelled.out().lines()).as("only the cancelled job").hasSize(1);
    }

    @Test
    void listRefusesBadInputWithExitCode2() {
        client.queue("q").enqueue("x");
        Object keys = REDIS.raw().call("DBSIZE");
        EmqRun state = emq("queue", "list", "q", "--state", "running");
        assertThat(state.code()).isEqualTo(2);
        assertThat(state.err()).contains("unknown job state 'running'");
        assertThat(emq("queue", "list", "q", "--limit", "0").code()).isEqualTo(2);
        assertThat(emq("queue", "list", "q", "--limit", "10001").code()).isEqualTo(2);
        EmqRun cursor = emq("queue", "list", "q", "--after", "not a cursor!");
        assertThat(cursor.code()).isEqualTo(2);
        assertThat(cursor.err()).contains("--after");
        EmqRun form = emq("queue", "list", "q", "--after", "z,abc,YQ");
        assertThat(form.code()).isEqualTo(2);
        assertThat(form.err()).contains("malformed cursor");
        assertThat(REDIS.raw().call("DBSIZE")).isEqualTo(keys);
    }

    @Test
    void retentionShowsDefaultsThenStoresChanges() {
        assertThat(emq("queue", "retention", "q").err()).contains("no such queue 'q'");
        EmqRun shown = emq("queue", "retention", "q", "--create");
        assertThat(shown.out()).isEqualTo("done-max=100000000 done-age=3600000 dead-max=10000 dead-age=15552000000\n");
        assertThat(shown.err()).contains("stores no settings");
        EmqRun set = emq("queue", "retention", "q", "--dead-max", "5", "--done-age", "60000", "--create");
        assertThat(set).isEqualTo(new EmqRun(0, "done-max=100000000 done-age=60000 dead-max=5 dead-age=15552000000\n", ""));
        assertThat(client.queue("q").retention()).contains(QueueRetention.defaults().withDeadMax(5)
                .withDoneAge(Duration.ofMinutes(1)));
        assertThat(emq("queue", "retention", "q", "--dead-max", "-1").code()).isEqualTo(2);
    }

    @Test
    void deleteRefusesWhileAJobIsActiveThenForces() {
        Queue q = client.queue("q");
        q.enqueue("a");
        q.enqueue("b");
        Job held = q.claim(LEASE).orElseThrow();
        client.queue("other").enqueue("stays");

        EmqRun refused = emq("queue", "delete", "q");
        assertThat(refused.code()).isEqualTo(1);
        assertThat(refused.out()).isEmpty();
        assertThat(refused.err()).contains("queue q has 1 active job; nothing was deleted").contains("--force");
        assertThat(q.stats().pending()).isEqualTo(1);

        EmqRun forced = emq("queue", "delete", "q", "--force", "--yes");
        assertThat(forced.code()).isZero();
        assertThat(forced.out()).matches("deleted keys=\\d+ active=1\n");
        assertThat((List<?>) REDIS.raw().call("KEYS", "emq:{q}:*")).isEmpty();
        assertThat(client.queue("other").stats().pending()).isEqualTo(1);
        assertThat(held.complete()).hasToString("LEASE_LOST");
    }

    @Test
    void deleteOfAnIdleQueueNeedsNoForce() {
        client.queue("q").enqueue("a");   // its hash, wait, seq and the protocol mark
        assertThat(emq("queue", "delete", "q", "--yes")).isEqualTo(new EmqRun(0, "deleted keys=4 active=0\n", ""));
        // the queue's keys are gone; the deletion's audit record stays
        assertThat(REDIS.raw().call("DBSIZE")).isEqualTo(1L);
        assertThat(REDIS.raw().call("EXISTS", io.echomq.audit.AuditTrail.KEY)).isEqualTo(1L);
    }
}
