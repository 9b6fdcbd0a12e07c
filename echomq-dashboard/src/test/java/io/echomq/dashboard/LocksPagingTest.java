package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The locks page reads the keyspace a page at a time: its next-page link carries the walk's
 * cursor, every held lock is on exactly one page, and a page whose time budget ran out says what
 * it scanned and claims no total.
 */
class LocksPagingTest extends DashboardTestBase {
    private static final Pattern RESOURCE = Pattern.compile("<a href=\"/lock\\?resource=([^\"]+)\">");
    private static final Pattern NEXT = Pattern.compile("<a rel=\"next\" href=\"([^\"]+)\"");

    @Test
    void pagesByTheCursorShowEveryLockExactlyOnce() {
        List<String> taken = take("p:", 300);
        client.queue("noise").enqueueAll(java.util.stream.IntStream.range(0, 300)
                .mapToObj(i -> io.echomq.queue.JobRequest.of("n" + i)).toList());
        List<String> seen = new ArrayList<>();
        int pages = walk(dashboard, "/locks?limit=10", seen, 1000);
        assertThat(seen).as("every lock once, over %d pages", pages).hasSize(taken.size())
                .containsExactlyInAnyOrderElementsOf(taken);
        assertThat(pages).as("a page stops near its limit of 10").isGreaterThan(10);
    }

    @Test
    void aPageWhoseBudgetRanOutSaysWhatItScannedAndTheNextPagesGoOn() {
        List<String> wanted = take("p:1", 60);
        take("q:", 400);
        try (Dashboard spent = Dashboard.builder(client).locks(locks).token(TOKEN).lockScanBudget(Duration.ZERO)
                .start()) {
            HttpResponse<String> first = get(spent, "/locks?prefix=p:1&limit=50");
            assertThat(first.statusCode()).isEqualTo(200);
            String text = first.body();
            assertThat(text).contains("the page's time budget of 0 ms ran out before it found 50 lock keys",
                    "found by 1 SCAN call that visited about 50 keys of about", "More may be held", "rel=\"next\"")
                    .doesNotContain("every held lock");
            List<String> seen = new ArrayList<>();
            int pages = walk(spent, "/locks?prefix=p:1&limit=50", seen, 10_000);
            assertThat(seen).as("one SCAN call per page, over %d pages", pages)
                    .containsExactlyInAnyOrderElementsOf(wanted);
            assertThat(pages).isGreaterThan(1);
        }
    }

    @Test
    void aWholeWalkOnTheFirstPageIsTheOnlyPageThatGivesATotal() {
        take("r:", 3);
        String body = get("/locks").body();
        assertThat(body).contains("3 locks held: every held lock, found by a whole SCAN of the keyspace")
                .doesNotContain("rel=\"next\"");
    }

    /** Takes {@code n} locks named {@code prefix0..prefix<n-1>}, a ttl of a minute each. */
    private static List<String> take(String prefix, int n) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String r = prefix + i;
            locks.tryAcquire(r, Duration.ofMinutes(1)).orElseThrow();
            names.add(r);
        }
        return names;
    }

    /** Follows the next-page links from {@code path}, adding each page's resources; @return the pages read */
    private static int walk(Dashboard d, String path, List<String> seen, int maxPages) {
        String at = path;
        int pages = 0;
        Set<String> cursors = new HashSet<>();
        while (at != null) {
            assertThat(pages).as("the walk ends").isLessThan(maxPages);
            HttpResponse<String> r = get(d, at);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            pages++;
            Matcher m = RESOURCE.matcher(r.body());
            while (m.find()) {
                seen.add(java.net.URLDecoder.decode(m.group(1), java.nio.charset.StandardCharsets.UTF_8));
            }
            Matcher next = NEXT.matcher(r.body());
            at = next.find() ? next.group(1).replace("&amp;", "&") : null;
            if (at != null) {
                assertThat(cursors.add(at)).as("a cursor never repeats").isTrue();
                assertThat(r.body()).doesNotContain("every held lock");
            }
        }
        return pages;
    }
}
