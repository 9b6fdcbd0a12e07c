package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.MissedFires;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueRetention;
import io.echomq.queue.Schedule;
import io.echomq.queue.ScheduleSpec;
import io.echomq.queue.Schedules;
import io.echomq.queue.ShardedQueue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * The dashboard in Debian's headless Chromium: a person's path through the pages, each action
 * done through its confirmation page with the browser's own form, the server's state read back
 * through the queue API afterwards, read-only mode, and the screenshots of {@code docs/images}.
 *
 * <p>Tagged {@code browser}: excluded from the default build, run by {@code .ci/run}'s browser
 * pass. Refresh the screenshots with {@code -Demq.screenshots.dir=$PWD/docs/images} (see
 * {@code docs/dashboard.md}).
 */
@Tag("browser")
class BrowserTest extends DashboardTestBase {
    static Browser browser;
    /** The seeded job whose timeline the screenshot shows: two retries, then completed. */
    static String retried;

    @BeforeAll
    static void openBrowser() {
        browser = new Browser();
        // The printed URL carries the token once; the dashboard trades it for its cookie.
        browser.open(dashboard.startUri().toString());
        assertThat(browser.url()).isEqualTo(dashboard.uri().toString());
        browser.open(readOnly.startUri().toString());
        assertThat(browser.url()).isEqualTo(readOnly.uri().toString());
    }

    @AfterAll
    static void closeBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    @Test
    void noBrowserOrDriverIsLookedUpOrDownloadedBySeleniumManager() {
        assertThat(Browser.seleniumManagerSkipped()).as("Selenium used the driver it was given").isTrue();
    }

    @Test
    void aPersonClicksFromTheQueuesToAJobAndTheScreenshotsAreTaken() {
        String dead = seedAPleasantServer();
        // A dashboard as emq dashboard starts it: the server named by its URL, the walk of the keyspace kept.
        try (Dashboard shown = Dashboard.builder(client).locks(locks).token(TOKEN)
                .serverDescription(REDIS.url() + " · " + Dashboard.productOnly(client.serverDescription())).start()) {
            clickThrough(shown, dead);
        }
    }

    private static void clickThrough(Dashboard shown, String dead) {
        browser.open(shown.startUri().toString());
        assertThat(browser.title()).isEqualTo("Queues · EchoMQ");
        assertThat(browser.find(By.cssSelector("header .server")).getText()).startsWith("redis://");
        assertThat(browser.findAll(By.cssSelector("table.queues tbody tr"))).hasSize(4);
        browser.screenshot("dashboard-overview");

        browser.click(By.linkText("emails"));
        assertThat(browser.title()).isEqualTo("emails · pending · EchoMQ");
        assertThat(browser.findAll(By.cssSelector("table.jobs tbody tr"))).hasSize(11);
        // The chart is drawn from the kept history, coloured by the stylesheet under the page's CSP.
        List<org.openqa.selenium.WebElement> bars = browser.findAll(By.cssSelector("svg.chart rect.c"));
        assertThat(bars).hasSize(60);
        assertThat(bars.get(0).getCssValue("fill")).isEqualTo("rgb(36, 88, 198)");
        browser.screenshot("dashboard-queue");

        browser.click(By.cssSelector("a.tab[href$='state=dead']"));
        assertThat(browser.title()).isEqualTo("emails · dead · EchoMQ");
        browser.click(By.linkText(dead));
        assertThat(browser.title()).isEqualTo("Job " + dead + " · EchoMQ");
        assertThat(browser.find(By.cssSelector(".state")).getText()).isEqualTo("dead");
        assertThat(browser.find(By.cssSelector("pre.error")).getText()).contains("SMTP 554");
        browser.screenshot("dashboard-job");

        browser.click(By.cssSelector("a.button.redrive"));
        assertThat(browser.title()).isEqualTo("Confirm: redrive · job " + dead + " of emails · EchoMQ");
        assertThat(browser.mainText()).contains("Move dead job " + dead + " of queue emails (dead now) back to pending");
        browser.screenshot("dashboard-confirm");
        browser.click(By.linkText("No, go back"));
        assertThat(browser.title()).isEqualTo("Job " + dead + " · EchoMQ");
        assertThat(client.queue("emails").inspect(dead).orElseThrow().state())
                .as("going back from a confirmation changes nothing").isEqualTo("dead");

        browser.click(By.linkText("Locks"));
        assertThat(browser.title()).isEqualTo("Locks · EchoMQ");
        assertThat(browser.findAll(By.cssSelector("table.locks tbody tr"))).hasSize(3);
        browser.screenshot("dashboard-locks");

        browser.click(By.linkText("orders:52017"));
        assertThat(browser.title()).isEqualTo("Lock orders:52017 · EchoMQ");
        assertThat(browser.mainText()).contains("held", "No per-lock history of grants is recorded", "Operator actions");
        browser.screenshot("dashboard-lock");

        browser.open(shown.uri() + "job?queue=thumbnails&id=" + retried);
        List<String> events = browser.findAll(By.cssSelector("table.timeline span.event")).stream()
                .map(org.openqa.selenium.WebElement::getText).toList();
        assertThat(events).containsExactly("active", "retrying", "active", "retrying", "active", "progress", "completed");
        browser.screenshot("dashboard-timeline");

        browser.click(By.linkText("Queues"));
        browser.click(By.linkText("reports"));
        browser.click(By.linkText("Schedules"));
        assertThat(browser.title()).isEqualTo("reports · schedules · EchoMQ");
        assertThat(browser.findAll(By.cssSelector("table.schedules tbody tr"))).hasSize(3);
        browser.screenshot("dashboard-schedules");

        visitTheWorkers();
    }

    /** Starts three workers (two holding jobs), then looks at them from the nav and from a queue's page. */
    private static void visitTheWorkers() {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        io.echomq.queue.JobHandler holds = job -> release.await(30, java.util.concurrent.TimeUnit.SECONDS);
        List<io.echomq.queue.Worker> workers = new ArrayList<>();
        try {
            ShardedQueue orders = client.shardedQueue("orders", 4);
            workers.add(client.worker(orders, holds).concurrency(8).maintenanceInterval(Duration.ofMillis(200))
                    .shutdownGrace(Duration.ofSeconds(5)).start());
            workers.add(client.worker(orders, holds).concurrency(4).maintenanceInterval(Duration.ofMillis(200))
                    .shutdownGrace(Duration.ofSeconds(5)).start());
            workers.add(client.worker("thumbnails", job -> { }).concurrency(2)
                    .maintenanceInterval(Duration.ofMillis(200)).start());
            long deadline = System.nanoTime() + 15_000_000_000L;
            while (!(get("/workers").body().contains("3 workers on 4 queues")
                    && io.echomq.queue.WorkerDirectory.of(client).list("orders").stream()
                            .mapToInt(io.echomq.queue.WorkerInfo::inHand).sum() == 12)) {
                assertThat(System.nanoTime()).as("three workers beat, holding 12 jobs").isLessThan(deadline);
                sleep();
            }
            browser.click(By.linkText("Workers"));
            assertThat(browser.title()).isEqualTo("Workers · EchoMQ");
            assertThat(browser.findAll(By.cssSelector("table.workers tbody tr"))).hasSize(3);
            assertThat(browser.mainText()).contains(workers.get(0).toString(), workers.get(2).toString());
            browser.screenshot("dashboard-workers");
            whoRunsAJob();

            browser.click(By.linkText("thumbnails"));
            assertThat(browser.title()).isEqualTo("thumbnails · pending · EchoMQ");
            browser.click(By.cssSelector("main a[href='/workers?queue=thumbnails']"));   // the queue's own link
            assertThat(browser.title()).isEqualTo("thumbnails · workers · EchoMQ");
            assertThat(browser.findAll(By.cssSelector("table.workers tbody tr"))).hasSize(1);
        } finally {
            release.countDown();
            workers.forEach(io.echomq.queue.Worker::close);
        }
    }

    /** From the workers page, a held job's link opens the job, whose page names the worker that runs it. */
    private static void whoRunsAJob() {
        org.openqa.selenium.WebElement link = browser.find(By.cssSelector("table.workers td.held a"));
        String id = link.getText();
        io.echomq.queue.WorkerInfo holder = io.echomq.queue.WorkerDirectory.of(client).list("orders").stream()
                .filter(w -> w.holds(id)).findFirst().orElseThrow(() -> new AssertionError("no worker lists " + id));
        link.click();
        assertThat(browser.title()).isEqualTo("Job " + id + " · EchoMQ");
        List<String> terms = browser.findAll(By.cssSelector("dl.facts dt")).stream()
                .map(org.openqa.selenium.WebElement::getText).toList();
        List<String> facts = browser.findAll(By.cssSelector("dl.facts dd")).stream()
                .map(org.openqa.selenium.WebElement::getText).toList();
        assertThat(facts.get(terms.indexOf("Worker"))).isEqualTo(holder.label());
        assertThat(facts.get(terms.indexOf("Running for"))).matches("[0-9.]+ s|[0-9]+ min [0-9]+ s");
        browser.click(By.linkText(holder.label()));
        assertThat(browser.title()).isEqualTo("orders · workers · EchoMQ");
        browser.click(By.linkText("Workers"));
    }

    private static void sleep() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Test
    void removeAnswersLockedForAHeldJobAndForceRemovesIt() {
        Queue q = client.queue("emails");
        String waiting = q.enqueue("a");
        String held = q.enqueue("b");
        assertThat(q.claim(Duration.ofSeconds(30)).orElseThrow().id()).isEqualTo(waiting);
        assertThat(q.claim(Duration.ofSeconds(30)).orElseThrow().id()).isEqualTo(held);
        q.enqueue("c");

        browser.open(dashboard.uri() + "queue?name=emails");
        browser.click(By.cssSelector("a.tab[href$='state=active']"));
        browser.click(By.linkText(held));
        browser.click(By.cssSelector("a.button.remove"));
        assertThat(confirm()).isEqualTo("LOCKED");
        assertThat(q.inspect(held)).as("a held job stays").isPresent();

        browser.click(By.cssSelector("a.button[href*='action=force-remove']"));
        assertThat(browser.title()).isEqualTo("Confirm: remove even while a worker holds it · job " + held
                + " of emails · EchoMQ");
        assertThat(confirm()).isEqualTo("REMOVED");
        assertThat(q.inspect(held)).isEmpty();
        assertThat(q.stats().active()).isEqualTo(1);
        assertThat(q.stats().pending()).isEqualTo(1);
    }

    @Test
    void cancelStopsAWaitingJob() {
        Queue q = client.queue("emails");
        String id = q.enqueue("a");
        browser.open(dashboard.uri() + "queue?name=emails");
        browser.click(By.linkText(id));
        browser.click(By.cssSelector("a.button.cancel"));
        assertThat(confirm()).isEqualTo("CANCELLED");
        assertThat(q.inspect(id)).as("a cancelled waiting job keeps no hash by default").isEmpty();
        assertThat(q.stats().pending()).isZero();
    }

    @Test
    void redriveOneDeadJobThenEveryOther() {
        Queue q = client.queue("emails");
        List<String> dead = kill(q, 3);
        browser.open(dashboard.uri() + "queue?name=emails&state=dead");
        browser.click(By.linkText(dead.get(1)));
        browser.click(By.cssSelector("a.button.redrive"));
        assertThat(confirm()).isEqualTo("REDRIVEN");
        assertThat(q.inspect(dead.get(1)).orElseThrow().state()).isEqualTo("pending");
        assertThat(q.stats().dead()).isEqualTo(2);

        browser.open(dashboard.uri() + "queue?name=emails&state=dead");
        browser.click(By.cssSelector("a.button.redrive-all"));
        assertThat(confirm()).isEqualTo("REDRIVEN 2");
        assertThat(q.stats().dead()).isZero();
        assertThat(q.stats().pending()).isEqualTo(3);
    }

    @Test
    void pauseThenResumeAShardedQueue() {
        ShardedQueue orders = client.shardedQueue("orders", 2);
        orders.enqueue("o1");
        browser.open(dashboard.uri().toString());
        browser.click(By.linkText("orders"));
        browser.click(By.cssSelector("a.button.pause"));
        assertThat(confirm()).isEqualTo("PAUSED");
        assertThat(orders.partitionStats()).allMatch(s -> s.paused());

        browser.click(By.linkText("Back"));
        browser.click(By.cssSelector("a.button.resume"));
        assertThat(confirm()).isEqualTo("RESUMED");
        assertThat(orders.isPaused()).isFalse();
    }

    @Test
    void readOnlyShowsNoButtonAndRefusesAConfirmation() {
        Queue q = client.queue("emails");
        List<String> dead = kill(q, 1);
        String base = readOnly.uri().toString();
        browser.open(base);
        assertThat(browser.find(By.cssSelector(".badge.ro")).getText()).isEqualTo("read-only");
        browser.click(By.linkText("emails"));
        browser.click(By.cssSelector("a.tab[href$='state=dead']"));
        assertThat(browser.findAll(By.cssSelector("a.button"))).isEmpty();
        assertThat(browser.findAll(By.cssSelector("input[type=checkbox], button.redrive-selected"))).isEmpty();
        browser.click(By.linkText(dead.get(0)));
        assertThat(browser.title()).isEqualTo("Job " + dead.get(0) + " · EchoMQ");
        assertThat(browser.findAll(By.cssSelector("a.button"))).isEmpty();

        browser.open(base + "confirm?queue=emails&action=redrive&id=" + dead.get(0));
        assertThat(browser.title()).isEqualTo("Refused (403) · EchoMQ");
        assertThat(browser.findAll(By.tagName("form"))).isEmpty();
        assertThat(q.inspect(dead.get(0)).orElseThrow().state()).isEqualTo("dead");
    }

    @Test
    void aPersonOpensALockAndAJobsLockFromTheirLists() {
        io.echomq.lock.Lease lease = locks.tryAcquire("invoices:7", Duration.ofSeconds(30)).orElseThrow();
        browser.open(dashboard.uri() + "locks");
        browser.click(By.linkText("invoices:7"));
        assertThat(browser.title()).isEqualTo("Lock invoices:7 · EchoMQ");
        assertThat(browser.mainText()).contains(lease.token().substring(0, LocksPage.TOKEN_SHOWN))
                .doesNotContain(lease.token()).contains(Long.toString(lease.fence()));
        assertThat(locks.inspect("invoices:7").holderToken()).as("a page changes nothing").hasValue(lease.token());

        Queue q = client.queue("emails");
        String id = q.enqueue("a");
        Job job = q.claim(Duration.ofSeconds(30)).orElseThrow();
        browser.open(dashboard.uri() + "queue?name=emails&state=active");
        browser.click(By.linkText(id));
        browser.click(By.linkText("the job's lease"));
        assertThat(browser.title()).isEqualTo("Lock of job " + id + " · EchoMQ");
        assertThat(browser.mainText()).contains("held by the worker of attempt 1");
        assertThat(browser.findAll(By.cssSelector("table.timeline span.event"))).hasSize(1);
        browser.click(By.linkText(id));
        assertThat(browser.title()).isEqualTo("Job " + id + " · EchoMQ");
        assertThat(job.complete().name()).as("looking at its lock left the lease alone").isEqualTo("COMPLETED");
    }

    @Test
    void aPersonTakesAStuckLockOverThroughItsConfirmation() {
        io.echomq.lock.Lease stuck = locks.tryAcquire("invoices:8", Duration.ofSeconds(30)).orElseThrow();
        browser.open(dashboard.uri() + "lock?resource=invoices:8");
        browser.click(By.cssSelector("a.takeover"));
        assertThat(browser.title()).isEqualTo("Confirm: take over · invoices:8 · EchoMQ");
        assertThat(browser.mainText()).contains("Take lock invoices:8 over from its holder",
                stuck.token().substring(0, LocksPage.TOKEN_SHOWN), "fence " + stuck.fence(),
                "The old holder is not stopped", "only the fence stops it").doesNotContain(stuck.token());
        assertThat(confirm()).startsWith("TAKEN_AND_FREED fence=");
        assertThat(locks.inspect("invoices:8").isHeld()).as("taken over, then freed").isFalse();
        assertThat(stuck.renew().name()).as("the old holder finds out at its next renewal").isNotEqualTo("RENEWED");
    }

    @Test
    void redriveASelectionOfDeadJobs() {
        Queue q = client.queue("emails");
        List<String> dead = kill(q, 3);
        browser.open(dashboard.uri() + "queue?name=emails&state=dead");
        browser.find(By.cssSelector("input[type=checkbox][value='" + dead.get(0) + "']")).click();
        browser.find(By.cssSelector("input[type=checkbox][value='" + dead.get(2) + "']")).click();
        browser.click(By.cssSelector("button.redrive-selected"));
        assertThat(browser.title()).isEqualTo("Confirm: redrive selected · EchoMQ");
        assertThat(browser.findAll(By.cssSelector("ul.selection li"))).extracting(e -> e.getText())
                .containsExactly(dead.get(0), dead.get(2));
        assertThat(confirm()).isEqualTo("REDRIVEN 2");
        assertThat(browser.findAll(By.cssSelector("table.outcomes code.outcome"))).extracting(e -> e.getText())
                .containsExactly("REDRIVEN", "REDRIVEN");
        assertThat(q.inspect(dead.get(0)).orElseThrow().state()).isEqualTo("pending");
        assertThat(q.inspect(dead.get(1)).orElseThrow().state()).as("the job left unticked stays dead").isEqualTo("dead");
        assertThat(q.inspect(dead.get(2)).orElseThrow().state()).isEqualTo("pending");
    }

    /**
     * Writes an hour of per-minute samples, as the workers' maintenance keeps them: a morning's
     * rise in completions, with a few failures now and then.
     */
    private static void seedAnHourOfThroughput(String queue) {
        List<?> t = (List<?>) REDIS.raw().call("TIME");
        Object seconds = t.get(0);
        long now = Long.parseLong(seconds instanceof byte[] b ? new String(b) : String.valueOf(seconds)) * 1000;
        long minute = now - now % 60_000;
        long completed = 1200;
        long failed = 30;
        for (int i = 60; i >= 0; i--) {
            long m = minute - i * 60_000L;
            REDIS.raw().call("ZADD", "emq:{" + queue + "}:throughput", Long.toString(m),
                    m + ":" + completed + ":" + failed);
            completed += 20 + (60 - i) / 2 + (i * 7) % 11;
            failed += i % 9 == 0 ? 3 : i % 4 == 0 ? 1 : 0;
        }
    }

    /** Presses the confirmation page's button and returns the typed outcome of the answer page. */
    private static String confirm() {
        assertThat(browser.title()).startsWith("Confirm: ");
        browser.click(By.cssSelector("form[action='/action'] button.danger"));
        List<org.openqa.selenium.WebElement> outcome = browser.findAll(By.cssSelector("p.outcome"));
        assertThat(outcome).as("an outcome on %s: %s", browser.title(), browser.mainText()).hasSize(1);
        return outcome.get(0).getText();
    }

    /** @return the ids of {@code n} jobs failed for good, in order of death */
    private static List<String> kill(Queue q, int n) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            q.enqueue(("d" + i).getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withMaxAttempts(1));
            Job j = q.claim(Duration.ofSeconds(30)).orElseThrow();
            j.fail("no");
            ids.add(j.id());
        }
        return ids;
    }

    /**
     * Fills the server with what a small shop's queues look like mid-morning, for the screenshots.
     *
     * @return the id of a dead job with a stack trace
     */
    private static String seedAPleasantServer() {
        Queue emails = client.queue("emails");
        for (int i = 0; i < 14; i++) {
            String payload = "{\"to\":\"customer" + (1000 + i) + "@example.com\",\"template\":\"order-shipped\","
                    + "\"order\":" + (52_000 + i) + "}";
            emails.enqueue(payload.getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withMaxAttempts(1)
                    .withPriority(i % 5 == 0 ? 5 : 0));
        }
        emails.enqueue("{\"digest\":\"weekly\"}".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withDelay(Duration.ofHours(2)));
        Job doomed = emails.claim(Duration.ofSeconds(30)).orElseThrow();
        IllegalStateException refused = new IllegalStateException(
                "SMTP 554 5.7.1: relay access denied for customer1000@example.com");
        // The frames of the application a reader would have, not of this test.
        refused.setStackTrace(new StackTraceElement[] {
            new StackTraceElement("com.example.mail.SmtpSender", "send", "SmtpSender.java", 88),
            new StackTraceElement("com.example.mail.OrderShippedMailer", "handle", "OrderShippedMailer.java", 41),
        });
        doomed.fail(refused);
        emails.claim(Duration.ofSeconds(30)).orElseThrow().complete();
        emails.claim(Duration.ofMinutes(5)).orElseThrow().progress("sent 3 of 4 parts");

        ShardedQueue orders = client.shardedQueue("orders", 4);
        for (int i = 0; i < 40; i++) {
            orders.enqueue("{\"order\":" + (52_100 + i) + "}");
        }
        Queue reports = client.queue("reports");
        reports.enqueue("{\"report\":\"monthly-revenue\"}");
        reports.pause();
        Schedules schedules = client.schedules("reports");
        schedules.upsert(Schedule.of("revenue-hourly", ScheduleSpec.every(Duration.ofHours(1)),
                "{\"report\":\"revenue\",\"window\":\"1h\"}"));
        schedules.upsert(Schedule.of("stock-check", ScheduleSpec.every(Duration.ofMinutes(15)),
                "{\"report\":\"stock\"}").withMissed(MissedFires.ONCE));
        schedules.upsert(Schedule.of("weekly-close", ScheduleSpec.every(Duration.ofDays(7)),
                "{\"report\":\"close\",\"notify\":[\"finance@example.com\"]}").withMissed(MissedFires.ALL));
        Queue thumbnails = client.queue("thumbnails");
        thumbnails.setRetention(QueueRetention.defaults());   // keeps the completed jobs, whose timeline a page shows
        for (int i = 0; i < 6; i++) {
            thumbnails.enqueue("{\"image\":\"img-" + i + ".jpg\"}");
            thumbnails.claim(Duration.ofSeconds(30)).orElseThrow().complete();
        }

        retried = thumbnails.enqueue("{\"image\":\"banner-wide.png\"}".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withMaxAttempts(3)).id();
        String[] errors = {"timed out fetching s3://media/banner-wide.png after 10 s",
            "decoder: image too large for a 64 MiB buffer (8,192 x 8,192)"};
        for (String error : errors) {
            thumbnails.claim(Duration.ofSeconds(30)).orElseThrow().fail(error);
            REDIS.raw().call("ZADD", "emq:{thumbnails}:due", "0", retried);   // its retry is due now
            thumbnails.promote(10);
        }
        Job third = thumbnails.claim(Duration.ofSeconds(30)).orElseThrow();
        third.progress("tiled 4 of 4");
        third.complete();

        seedAnHourOfThroughput("emails");

        locks.tryAcquire("orders:52017", Duration.ofSeconds(30)).orElseThrow();
        locks.tryAcquire("orders:52018", Duration.ofSeconds(45)).orElseThrow();
        locks.tryAcquire("reports:monthly", Duration.ofMinutes(10)).orElseThrow();
        return doomed.id();
    }
}
