package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.ShardedQueue;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Each action shows its typed outcome and changes Redis as that outcome says, read back through the core API. */
class ActionsTest extends DashboardTestBase {

    @Test
    void removeAnswersRemovedThenMissingAndLockedForAHeldJobUntilForced() {
        Queue q = client.queue("emails");
        String id = q.enqueue("a");
        assertThat(outcome(act("emails", "remove", id))).isEqualTo("REMOVED");
        assertThat(q.inspect(id)).isEmpty();
        assertThat(outcome(act("emails", "remove", id))).isEqualTo("MISSING");

        String held = q.enqueue("b");
        Job job = q.claim(Duration.ofSeconds(30)).orElseThrow();
        assertThat(job.id()).isEqualTo(held);
        HttpResponse<String> locked = act("emails", "remove", held);
        assertThat(outcome(locked)).isEqualTo("LOCKED");
        assertThat(locked.body()).contains("action=force-remove");
        assertThat(q.inspect(held)).isPresent();
        assertThat(outcome(act("emails", "force-remove", held))).isEqualTo("REMOVED");
        assertThat(q.inspect(held)).isEmpty();
    }

    @Test
    void redriveMovesOneDeadJobOrAllOfThemBackToPending() {
        Queue q = client.queue("emails");
        for (int i = 0; i < 3; i++) {
            q.enqueue(("d" + i).getBytes(), EnqueueOptions.defaults().withMaxAttempts(1));
        }
        String first = null;
        for (int i = 0; i < 3; i++) {
            Job j = q.claim(Duration.ofSeconds(30)).orElseThrow();
            first = first == null ? j.id() : first;
            j.fail("no");
        }
        assertThat(q.stats().dead()).isEqualTo(3);
        assertThat(outcome(act("emails", "redrive", first))).isEqualTo("REDRIVEN");
        assertThat(q.inspect(first).orElseThrow().state()).isEqualTo("pending");
        assertThat(outcome(act("emails", "redrive", first))).isEqualTo("NOT_DEAD");
        assertThat(outcome(act("emails", "redrive-all", null))).isEqualTo("REDRIVEN 2");
        assertThat(q.stats().dead()).isZero();
        assertThat(q.stats().pending()).isEqualTo(3);
    }

    @Test
    void pauseResumeAndCancelAnswerInTheWordsOfTheCommand() {
        ShardedQueue orders = client.shardedQueue("orders", 2);
        String id = orders.enqueue("o1".getBytes(), EnqueueOptions.defaults()).id();
        assertThat(outcome(act("orders", "pause", null))).isEqualTo("PAUSED");
        assertThat(orders.partitionStats()).allMatch(s -> s.paused());
        assertThat(outcome(act("orders", "pause", null))).isEqualTo("ALREADY_PAUSED");
        assertThat(outcome(act("orders", "resume", null))).isEqualTo("RESUMED");
        assertThat(orders.isPaused()).isFalse();
        assertThat(outcome(act("orders", "resume", null))).isEqualTo("NOT_PAUSED");
        assertThat(outcome(act("orders", "cancel", id))).isEqualTo("CANCELLED");
        assertThat(orders.inspect(id)).as("the default keeps no cancelled job's hash").isEmpty();
        assertThat(orders.stats().pending()).isZero();
        assertThat(outcome(act("orders", "cancel", id))).isEqualTo("NOT_FOUND");
    }

    @Test
    void theConfirmationPageSaysWhatWillHappenAndPostsTheAction() {
        String id = client.queue("emails").enqueue("a");
        HttpResponse<String> r = get("/confirm?queue=emails&action=remove&id=" + id);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("Remove job " + id + " of queue emails (pending now) wherever it is", "<form method=\"post\" action=\"/action\">",
                "name=\"action\" value=\"remove\"", "name=\"id\" value=\"" + id + "\"");
        assertThat(client.queue("emails").inspect(id)).as("a confirmation page changes nothing").isPresent();
    }

    private static String outcome(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Matcher m = Pattern.compile("<p class=\"outcome\">(.*?)</p>").matcher(r.body());
        assertThat(m.find()).as("an outcome in %s", r.body()).isTrue();
        return m.group(1);
    }
}
