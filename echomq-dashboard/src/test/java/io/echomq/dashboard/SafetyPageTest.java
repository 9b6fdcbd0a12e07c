package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * "Why it is safe" over HTTP on a real server: a run is a guarded POST, its figure and verdicts
 * follow the replies the server gave, and its scratch keys are gone when it answers.
 */
class SafetyPageTest extends DashboardTestBase {
    static Dashboard acting;
    static Dashboard fixed;
    static Dashboard guarded;

    @BeforeAll
    static void startFigures() {
        acting = Dashboard.builder(client).token(TOKEN).figures(REDIS.url()).start();
        fixed = Dashboard.builder(client).token(TOKEN).figures(REDIS.url()).figuresPrefix("emq:figures:fixed:").start();
        guarded = Dashboard.builder(client).token(TOKEN).figures(REDIS.url()).readOnly(true).start();
    }

    @AfterAll
    static void stopFigures() {
        acting.close();
        fixed.close();
        guarded.close();
    }

    @Test
    void theRaceHasExactlyOneOkAndItsKeysAreDeletedAfterTheRun() {
        REDIS.raw().call("SET", "someone:else", "untouched");

        HttpResponse<String> r = run(acting, "race");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> readouts = readouts(r.body(), "race");
        assertThat(readouts).hasSize(4);
        assertThat(readouts.stream().filter(t -> t.contains(" → OK: "))).hasSize(1);
        assertThat(readouts.stream().filter(t -> t.contains(" → nil: the key is now present"))).hasSize(3);
        assertThat(verdicts(r.body(), "race")).matches("Static verdicts — w[1-4] → finds the key absent, writes token "
                + "[0-9a-f]{8}, OK \\(the sole holder\\) · w[1-4], w[1-4], w[1-4] → the key is now present, nil\\. "
                + "Holders of the lock: 1\\. Double-acquired: no\\.");
        assertThat(REDIS.raw().call("KEYS", "emq:figures:*")).isEqualTo(List.of());
        assertThat(REDIS.raw().call("GET", "someone:else")).isEqualTo("untouched");
    }

    @Test
    void aKeyAlreadyHeldMakesEveryWorkersReplyAndReadoutNil() {
        REDIS.raw().call("SET", "emq:figures:fixed:race:lock", "held-by-someone-else");

        HttpResponse<String> r = run(fixed, "race");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> readouts = readouts(r.body(), "race");
        assertThat(readouts).hasSize(4).allMatch(t -> t.contains(" → nil: the key was already present"));
        assertThat(r.body()).doesNotContain("lane ok");
        assertThat(verdicts(r.body(), "race")).isEqualTo("Static verdicts — w1, w2, w3, w4 → the key is already "
                + "present, nil. Holders of the lock: 0. Double-acquired: no.");
    }

    @Test
    void theCrashGapDeadlocksTheTwoCommandAcquireOnly() {
        HttpResponse<String> r = run(acting, "crash-gap");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(verdicts(r.body(), "crash-gap")).matches("Static verdicts — SET … NX PX → one command, the lock "
                + "has an expiry \\(PTTL [1-9][0-9]* ms\\), no deadlock · SETNX then EXPIRE → a crash between the two "
                + "left a lock with no expiry \\(TTL -1\\), and the next SETNX got 0: a deadlock\\.");
        assertThat(readouts(r.body(), "crash-gap")).hasSize(2);
        assertThat(REDIS.raw().call("KEYS", "emq:figures:*")).isEqualTo(List.of());
    }

    @Test
    void theBlindDeleteHitsTheNextHolderAndTheTokenReleaseDoesNot() {
        HttpResponse<String> r = run(acting, "blind-del");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(verdicts(r.body(), "blind-del")).isEqualTo("Static verdicts — blind DEL after A's lock expired → 1, "
                + "deleted B's lock: yes · token-checked release → NOT_OWNER, B's lock intact: yes.");
        assertThat(readouts(r.body(), "blind-del")).hasSize(2);
        assertThat(REDIS.raw().call("KEYS", "emq:figures:*")).isEqualTo(List.of());
    }

    @Test
    void pxWithoutNxLetsTwoHoldersInAndNxRefusesTheThird() {
        HttpResponse<String> r = run(acting, "px-only");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(verdicts(r.body(), "px-only")).isEqualTo("Static verdicts — C1, C2 → SET … PX without NX, OK and OK: "
                + "C2 overwrote C1's token. Clients that believe they hold the lock: 2. Double-acquired: yes · C3 → "
                + "SET … NX PX → nil: with NX the held lock is refused.");
        assertThat(readouts(r.body(), "px-only")).hasSize(3);
        assertThat(REDIS.raw().call("KEYS", "emq:figures:*")).isEqualTo(List.of());
    }

    @Test
    void theStaleHoldersFencedWriteIsRefusedAndItsLeaseNotRevived() {
        HttpResponse<String> r = run(acting, "fenced");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(verdicts(r.body(), "fenced")).matches("Static verdicts — stale holder's write \\(fence (\\d+), after "
                + "B's (\\d+)\\) → STALE, the store kept B's value: yes · A's renew → NOT_OWNER, the lost lease revived: no\\.");
        assertThat(readouts(r.body(), "fenced")).hasSize(2);
        assertThat(REDIS.raw().call("KEYS", "emq:figures:*")).isEqualTo(List.of());
    }

    @Test
    void theClaimLeaseLosesNoJobAndRefusesTheKilledWorkersCompletion() {
        HttpResponse<String> r = run(acting, "claim-lease");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(verdicts(r.body(), "claim-lease")).matches("Static verdicts — Jobs enqueued: 1000 · accepted "
                + "completions: 1000 · completed exactly once: 1000 · lost: 0 · reaped leases: [1-9]\\d* · w4's stale "
                + "completion of job \\d+ \\(attempt 1\\) → LEASE_LOST \\(SUPERSEDED\\); w[123] ran it again as attempt "
                + "[2-9]\\. Queue drained: yes\\.");
        List<String> readouts = readouts(r.body(), "claim-lease");
        assertThat(readouts).hasSize(4);
        assertThat(readouts.get(3)).startsWith("w4 · claim-8 → job ").contains("→ LEASE_LOST (SUPERSEDED)");
        // The scratch queue, its maintenance lock and the lock acts' keys are all gone.
        assertThat(REDIS.raw().call("KEYS", "*figures*")).isEqualTo(List.of());
    }

    @Test
    void aRunIsAGuardedActionAndReadOnlyOffersNone() {
        assertThat(get(guarded, "/safety").body()).contains("Read-only: runs are turned off").doesNotContain("<form "
                + "class=\"run\"");
        assertThat(run(guarded, "race").statusCode()).isEqualTo(403);
        HttpResponse<String> noCsrf = post(acting, "/safety", Map.of("act", "race"), "Origin", origin(acting));
        assertThat(noCsrf.statusCode()).isEqualTo(403);
        HttpResponse<String> crossSite = post(acting, "/safety", Map.of("act", "race", "csrf", csrf(acting)),
                "Origin", "http://evil.example");
        assertThat(crossSite.statusCode()).isEqualTo(403);
        assertThat(run(acting, "rm-rf").statusCode()).isEqualTo(400);
        assertThat(REDIS.raw().call("KEYS", "emq:figures:*")).isEqualTo(List.of());
        // Without a URL the page explains the acts and offers no run.
        assertThat(get(dashboard, "/safety").body()).contains("started without a server URL")
                .doesNotContain("<form class=\"run\"");
    }

    /** Presses "run" as the page's form does: its CSRF value, same-origin headers. */
    static HttpResponse<String> run(Dashboard d, String act) {
        return post(d, "/safety", Map.of("act", act, "csrf", csrf(d)), "Origin", origin(d), "Sec-Fetch-Site",
                "same-origin");
    }

    /** @return the CSRF value of {@code d}'s "Why it is safe" page, or a placeholder in read-only mode */
    static String csrf(Dashboard d) {
        Matcher m = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(get(d, "/safety").body());
        return m.find() ? m.group(1) : "none";
    }

    /** @return the text of each lane's readout in the figure {@code id} */
    static List<String> readouts(String html, String id) {
        String fig = html.substring(html.indexOf("<figure class=\"fig\" id=\"" + id + "\""));
        fig = fig.substring(0, fig.indexOf("</figure>"));
        Matcher m = Pattern.compile("<output class=\"ro\">(.*?)</output>").matcher(fig);
        List<String> all = new java.util.ArrayList<>();
        while (m.find()) {
            all.add(unescape(m.group(1)));
        }
        return all;
    }

    static String verdicts(String html, String id) {
        Matcher m = Pattern.compile("<p class=\"verdicts\" id=\"" + id + "-verdicts\">(.*?)</p>").matcher(html);
        assertThat(m.find()).as("the verdicts of %s in %s", id, html).isTrue();
        return unescape(m.group(1).replaceAll("<[^>]+>", ""));
    }

    private static String unescape(String s) {
        return s.replace("&#39;", "'").replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">")
                .replace("&amp;", "&");
    }
}
