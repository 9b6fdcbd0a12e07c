package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.AcquireOptions;
import io.echomq.lock.FencedStore;
import io.echomq.lock.FencedWriteOutcome;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.LockInfo;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A lock's page shows its holder as an operator needs it (label, token prefix, fence, ttl, last
 * renewal), and its takeover runs through a confirmation that says what the fence does and does
 * not stop, behind the same checks as every action.
 */
class LockTakeoverTest extends DashboardTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);

    @Test
    void theLockPageShowsTheHolderLabelTokenPrefixFenceTtlAndLastRenewal() {
        try (LockClient labelled = LockClient.builder().redisUrl(REDIS.url()).holderLabel("host-a:42:billing").build()) {
            Lease lease = labelled.tryAcquire("orders:1", LEASE, AcquireOptions.defaults()).orElseThrow();
            String body = get("/lock?resource=orders:1").body();
            assertThat(body).contains("host-a:42:billing", "<code>" + lease.token().substring(0, 8) + "…</code>",
                    Long.toString(lease.fence()), "Last renewal", " ago")
                    .doesNotContain(lease.token());
            assertThat(get("/locks").body()).contains("host-a:42:billing").doesNotContain(lease.token());
            assertThat(body).contains("href=\"/confirm?action=takeover&amp;resource=orders%3A1&amp;holder="
                    + lease.token().substring(0, 8) + "&amp;fence=" + lease.fence() + "\"");
            assertThat(get(readOnly, "/lock?resource=orders:1").body()).doesNotContain("/confirm");
        }
        Lease plain = locks.tryAcquire("orders:2", LEASE).orElseThrow();
        assertThat(get("/lock?resource=orders:2").body()).contains("no label", "unknown: only a labelled holder")
                .doesNotContain(plain.token());
    }

    @Test
    void theConfirmationNamesTheLockAndHolderAndSaysThatOnlyTheFenceStopsAnOldHolder() {
        Lease lease = locks.tryAcquire("orders:1", LEASE).orElseThrow();
        HttpResponse<String> r = get(confirmPath("orders:1", lease));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("Take lock orders:1 over from its holder", lease.token().substring(0, 8) + "…",
                "fence " + lease.fence(), "The old holder is not stopped", "only the fence stops it",
                "writes that carry no fence are NOT refused", "name=\"action\" value=\"takeover\"",
                "name=\"csrf\"").doesNotContain(lease.token());
        assertThat(locks.inspect("orders:1").holderToken()).as("a confirmation changes nothing").contains(lease.token());

        lease.release();
        assertThat(get(confirmPath("orders:1", lease)).body()).contains("changed since its page was read",
                "nobody holds it now").doesNotContain("<form method=\"post\"");
    }

    @Test
    void aTakeoverNeedsTheCsrfValueASameOriginAndIsRefusedReadOnly() {
        Lease lease = locks.tryAcquire("orders:1", LEASE).orElseThrow();
        Map<String, String> form = form(lease, "hold");
        form.remove("csrf");
        assertThat(post(dashboard, form, "Origin", origin(dashboard)).statusCode()).isEqualTo(403);
        form.put("csrf", csrf());
        assertThat(post(dashboard, form, "Origin", "http://evil.example").statusCode()).isEqualTo(403);
        assertThat(post(readOnly, form, "Origin", origin(readOnly)).statusCode()).isEqualTo(403);
        assertThat(get(readOnly, confirmPath("orders:1", lease)).statusCode()).isEqualTo(403);
        assertThat(locks.inspect("orders:1").holderToken()).as("nothing was taken").contains(lease.token());
    }

    @Test
    void aTakeoverAnswersTakenOrRefusedAndHoldsOrFreesTheLock() {
        Lease first = locks.tryAcquire("orders:1", LEASE).orElseThrow();
        HttpResponse<String> held = post(dashboard, form(first, "hold"), "Origin", origin(dashboard));
        assertThat(outcome(held)).startsWith("TAKEN fence=").endsWith("ttl_ms=30000");
        LockInfo now = locks.inspect("orders:1");
        assertThat(now.holderToken().orElseThrow()).isNotEqualTo(first.token());
        assertThat(now.lastFence()).isGreaterThan(first.fence());
        assertThat(held.body()).doesNotContain(now.holderToken().orElseThrow());

        assertThat(outcome(post(dashboard, form(first, "hold"), "Origin", origin(dashboard))))
                .as("the holder seen is gone: the script refuses").isEqualTo("REFUSED");

        locks.release("orders:1", now.holderToken().orElseThrow());
        Lease second = locks.tryAcquire("orders:1", LEASE).orElseThrow();
        assertThat(outcome(post(dashboard, form(second, "free"), "Origin", origin(dashboard))))
                .startsWith("TAKEN_AND_FREED fence=");
        assertThat(locks.inspect("orders:1").isHeld()).isFalse();
    }

    @Test
    void aTakeoverThroughTheDashboardStopsALiveHolderOnlyByItsFence() throws Exception {
        FencedStore store = locks.fencedStore();
        try (LockClient worker = LockClient.builder().redisUrl(REDIS.url()).holderLabel("worker-1").build()) {
            Lease old = worker.tryAcquire("report", Duration.ofSeconds(3), AcquireOptions.defaults().withWatchdog())
                    .orElseThrow();
            AtomicReference<FencedWriteOutcome> lastWrite = new AtomicReference<>();
            AtomicBoolean stop = new AtomicBoolean();
            Thread holder = new Thread(() -> {
                while (!stop.get()) {
                    lastWrite.set(store.write("report:out", old.fence(), "old"));
                    Thread.onSpinWait();
                }
            });
            holder.start();
            try {
                poll(() -> lastWrite.get() == FencedWriteOutcome.WRITTEN);
                String page = get("/lock?resource=report").body();
                assertThat(page).contains("worker-1");
                assertThat(outcome(post(dashboard, form(old, "free"), "Origin", origin(dashboard))))
                        .startsWith("TAKEN_AND_FREED");
                assertThat(lastWrite.get()).as("the takeover alone does not stop the old holder's writes")
                        .isEqualTo(FencedWriteOutcome.WRITTEN);
                Lease next = locks.tryAcquire("report", LEASE).orElseThrow();
                assertThat(next.fence()).isGreaterThan(old.fence());
                assertThat(store.write("report:out", next.fence(), "new")).isEqualTo(FencedWriteOutcome.WRITTEN);
                poll(() -> lastWrite.get() == FencedWriteOutcome.STALE);
                poll(old::isLost);
                assertThat(old.lossReason()).as("its watchdog found the lock no longer its own").isPresent();
                assertThat(store.read("report:out").orElseThrow().value()).isEqualTo("new");
            } finally {
                stop.set(true);
                holder.join();
            }
        }
    }

    /** Polls until {@code condition} holds, failing after five seconds. */
    private static void poll(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("the condition held within 5 s").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private static String confirmPath(String resource, Lease lease) {
        return "/confirm?action=takeover&resource=" + Html.url(resource) + "&holder=" + lease.token().substring(0, 8)
                + "&fence=" + lease.fence();
    }

    private static Map<String, String> form(Lease seen, String then) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("csrf", csrf());
        form.put("action", "takeover");
        form.put("resource", seen.resource());
        form.put("holder", seen.token().substring(0, 8));
        form.put("fence", Long.toString(seen.fence()));
        form.put("ttl_ms", "30000");
        form.put("then", then);
        return form;
    }

    private static String outcome(HttpResponse<String> r) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Matcher m = Pattern.compile("<p class=\"outcome\">(.*?)</p>").matcher(r.body());
        assertThat(m.find()).as("an outcome in %s", r.body()).isTrue();
        return m.group(1);
    }
}
