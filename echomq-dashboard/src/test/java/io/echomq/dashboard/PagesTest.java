package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.Lease;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.ShardedQueue;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Each page shows what a known sequence of enqueues, claims and failures left in Redis. */
class PagesTest extends DashboardTestBase {

    @Test
    void theOverviewShowsEveryQueueWithItsCountsAndASharedQueueAsOne() {
        Queue emails = client.queue("emails");
        emails.enqueue("a");
        emails.enqueue("b");
        emails.enqueue("later".getBytes(), EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        emails.enqueue("doomed".getBytes(), EnqueueOptions.defaults().withMaxAttempts(1).withPriority(5));
        emails.claim(Duration.ofSeconds(30)).orElseThrow().fail("boom");   // the priority-5 job: dead
        emails.claim(Duration.ofSeconds(30)).orElseThrow().complete();     // "a"
        emails.claim(Duration.ofMillis(100));                              // "b": active, then overdue
        ShardedQueue orders = client.shardedQueue("orders", 3);
        for (int i = 0; i < 4; i++) {
            orders.enqueue("o" + i);
        }
        orders.pause();
        awaitOverdue(emails);

        HttpResponse<String> r = get("/");
        assertThat(r.statusCode()).isEqualTo(200);
        // Queue, pending, active, delayed, dead, completed, failed, failed/min and last hour (no history yet),
        // overdue, state
        assertThat(row(r.body(), "emails")).containsExactly("emails", "0", "1", "1", "1", "1", "1", "–", "—", "1",
                "running");
        assertThat(row(r.body(), "orders 3 partitions")).containsExactly("orders 3 partitions", "4", "0", "0", "0",
                "0", "0", "–", "—", "0", "paused");
        assertThat(r.body()).contains("2 queues").doesNotContain("orders#");
    }

    @Test
    void aQueuesJobsArePagedByCursorInClaimOrder() {
        Queue q = client.queue("emails");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(q.enqueue("job " + i));
        }
        List<String> seen = new ArrayList<>();
        String page = "/queue?name=emails&state=pending&limit=2";
        int pages = 0;
        while (page != null) {
            HttpResponse<String> r = get(page);
            assertThat(r.statusCode()).isEqualTo(200);
            Matcher m = Pattern.compile("<a href=\"/job\\?queue=emails&amp;id=([^\"]+)\">").matcher(r.body());
            while (m.find()) {
                seen.add(m.group(1));
            }
            Matcher next = Pattern.compile("<a rel=\"next\" href=\"([^\"]+)\"").matcher(r.body());
            page = next.find() ? next.group(1).replace("&amp;", "&") : null;
            pages++;
        }
        assertThat(seen).containsExactlyElementsOf(ids);
        assertThat(pages).isEqualTo(3);
        assertThat(get("/queue?name=emails&state=dead").body()).contains("No dead jobs.");
        assertThat(get("/queue?name=emails&state=dead").body()).doesNotContain("keeps no hash");
        assertThat(get("/queue?name=emails&state=done").body()).as("an empty done tab says why")
                .contains("No done jobs. This queue keeps no completed jobs: it stores no retention settings",
                        "Set emq queue retention emails --done-max &lt;n&gt;");
    }

    @Test
    void aSearchByIdLeadsToTheJobOrSaysThereIsNone() {
        String id = client.queue("emails").enqueue("a");
        HttpResponse<String> found = get("/queue?name=emails&id=" + id);
        assertThat(found.statusCode()).isEqualTo(303);
        assertThat(found.headers().firstValue("Location")).hasValue("/job?queue=emails&id=" + id);
        HttpResponse<String> missing = get("/queue?name=emails&id=999");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(message(missing)).isEqualTo("no job '999' in queue 'emails' (it may have been removed, or it "
                + "completed: a completed job keeps no hash unless the queue's retention asks (docs/queue.md, "
                + "\"Retention\"))");
    }

    @Test
    void aJobsPageShowsItsTriesItsErrorAndAPreviewOfItsPayload() {
        Queue q = client.queue("emails");
        String id = q.enqueue("{\"to\":\"ada\"}".getBytes(), EnqueueOptions.defaults().withMaxAttempts(2)
                .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))).id();
        Job first = q.claim(Duration.ofSeconds(30)).orElseThrow();
        first.fail(new IllegalStateException("smtp <down>"));
        HttpResponse<String> r = get("/job?queue=emails&id=" + id);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("{&quot;to&quot;:&quot;ada&quot;}", "12 bytes")
                .contains("<dt>Spent / max</dt><dd>1 / 2</dd>", "<dt>Attempts granted (fence)</dt><dd>1</dd>")
                .contains("java.lang.IllegalStateException: smtp &lt;down&gt;");

        long until = System.nanoTime() + 5_000_000_000L;
        while (q.claim(Duration.ofSeconds(30)).isEmpty()) {      // its retry is due after 1 ms
            assertThat(System.nanoTime()).as("the retry came due").isLessThan(until);
            q.promote(10);
        }
        String active = get("/job?queue=emails&id=" + id).body();
        assertThat(active).contains("<dt>Lease deadline</dt><dd>20");   // a time, found in the active listing

        byte[] binary = new byte[5000];
        binary[0] = (byte) 0xff;
        binary[1] = 0x01;
        String bin = q.enqueue(binary);
        String b = get("/job?queue=emails&id=" + bin).body();
        assertThat(b).contains("5,000 bytes, binary, shown as hex, only the start shown").contains("ff 01 00 00");
        assertThat(b.length()).isLessThan(20_000);
        String big = q.enqueue("x".repeat(100_000));
        assertThat(get("/job?queue=emails&id=" + big).body()).contains("100,000 bytes, only the start shown")
                .doesNotContain("x".repeat(Payloads.TEXT_BYTES + 1));
    }

    @Test
    void theLocksPageShowsTheHeldLocksUnderAPrefixWithTtlAndFenceButNotAWholeToken() {
        Lease one = locks.tryAcquire("orders:1", Duration.ofSeconds(30)).orElseThrow();
        Lease two = locks.tryAcquire("orders:2", Duration.ofSeconds(5)).orElseThrow();
        locks.tryAcquire("invoices:1", Duration.ofSeconds(30)).orElseThrow();
        HttpResponse<String> r = get("/locks?prefix=orders:");
        assertThat(r.statusCode()).isEqualTo(200);
        List<String> first = row(r.body(), "orders:1");
        assertThat(first.get(1)).isEqualTo(one.token().substring(0, LocksPage.TOKEN_SHOWN) + "…");
        assertThat(first.get(2)).matches("\\d+\\.\\d s");
        assertThat(first.get(3)).isEqualTo(Long.toString(one.fence()));
        assertThat(row(r.body(), "orders:2").get(2)).matches("\\d+ ms");
        assertThat(r.body()).doesNotContain(one.token(), two.token(), "invoices:1").contains("2 locks held");
        two.close();
        assertThat(get("/locks?prefix=orders:").body()).contains("1 lock held").doesNotContain("orders:2");
    }

    @Test
    void aStaleWalkIsShownWhileTheNextRunsInTheBackground() {
        client.queue("first").enqueue("a");
        QueueIndex index = new QueueIndex(client, Duration.ofMillis(1), Duration.ofSeconds(10));
        assertThat(index.walk().orElseThrow().names()).containsExactly("first");      // the first view waits for its walk
        client.queue("second").enqueue("b");
        long until = System.nanoTime() + 5_000_000_000L;
        java.util.SortedSet<String> seen = index.walk().orElseThrow().names();
        assertThat(seen).as("the stale walk, answered at once").containsExactly("first");
        while (!seen.contains("second")) {
            assertThat(System.nanoTime()).as("a background walk found the new queue").isLessThan(until);
            sleep();
            seen = index.walk().orElseThrow().names();
        }
        assertThat(seen).containsExactly("first", "second");
    }

    @Test
    void aViewBeforeTheFirstWalkEndedSaysSoInsteadOfWaitingForIt() {
        client.queue("first").enqueue("a");
        QueueIndex index = new QueueIndex(client, Duration.ofSeconds(10), Duration.ZERO);
        // The first view starts the walk and, with no wait, cannot see it end: it holds the index meanwhile.
        assertThat(new OverviewPage(index).render(new Html.Frame("test", false, "csrf")))
                .contains("The first walk of the keyspace for queues is still running");
        long until = System.nanoTime() + 5_000_000_000L;
        while (index.walk().isEmpty()) {
            assertThat(System.nanoTime()).as("the walk started by the first view ends").isLessThan(until);
            sleep();
        }
        assertThat(index.walk().orElseThrow().names()).containsExactly("first");
        assertThat(new OverviewPage(index).render(new Html.Frame("test", false, "csrf")))
                .doesNotContain("still running").contains("first");
    }

    private static void sleep() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void awaitOverdue(Queue q) {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (q.stats().overdue() == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the lease never ran out");
            }
            sleep();
        }
    }
}
