package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A confirmation says what it acts on as read now: the queue (job ids repeat across queues), the
 * job's state, a queue's counts, and for "redrive all" the number of dead jobs and the first ids.
 */
class ConfirmationTextTest extends DashboardTestBase {

    @Test
    void aJobActionNamesTheQueueAndTheJobsStateNow() {
        String id = client.queue("emails").enqueue("a");
        client.queue("sms").enqueue("b");
        HttpResponse<String> r = get("/confirm?queue=emails&action=cancel&id=" + id);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("Cancel job " + id + " of queue emails (pending now)",
                "<title>Confirm: cancel · job " + id + " of emails");
        assertThat(get("/confirm?queue=emails&action=remove&id=nosuch").body())
                .contains("Remove job nosuch of queue emails (not found now)");
    }

    @Test
    void redriveAllNamesTheCountAndTheFirstIds() {
        Queue q = client.queue("emails");
        List<String> dead = new ArrayList<>();
        for (int i = 0; i < QueueActions.FIRST_IDS + 2; i++) {
            q.enqueue(("d" + i).getBytes(), EnqueueOptions.defaults().withMaxAttempts(1));
            Job j = q.claim(Duration.ofSeconds(30)).orElseThrow();
            dead.add(j.id());
            j.fail("no");
        }
        String body = get("/confirm?queue=emails&action=redrive-all").body();
        assertThat(body).contains("Move all 7 dead jobs of queue emails back to pending",
                "the oldest are " + String.join(", ", dead.subList(0, QueueActions.FIRST_IDS)) + ", …")
                .doesNotContain(dead.get(QueueActions.FIRST_IDS) + ",");
        assertThat(q.stats().dead()).as("a confirmation changes nothing").isEqualTo(7);

        client.queue("empty").enqueue("x");
        assertThat(get("/confirm?queue=empty&action=redrive-all").body()).contains("Queue empty has no dead job now");
    }

    @Test
    void pauseNamesTheQueueAndItsCounts() {
        client.queue("emails").enqueue("a");
        client.queue("emails").enqueue("b");
        assertThat(get("/confirm?queue=emails&action=pause").body())
                .contains("Pause claims on queue emails for every worker (2 pending, 0 active, 0 delayed)");
    }
}
