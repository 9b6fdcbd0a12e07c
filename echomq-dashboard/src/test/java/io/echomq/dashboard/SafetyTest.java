package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Queue;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The token rule, CSRF, read-only mode and the security headers, over real HTTP. */
class SafetyTest extends DashboardTestBase {

    @Test
    void everyPageButTheStylesheetNeedsTheToken() {
        client.queue("emails").enqueue("a");
        for (String path : new String[] {"/", "/queue?name=emails", "/job?queue=emails&id=1",
            "/confirm?queue=emails&action=pause", "/workers", "/workers?queue=emails"}) {
            HttpResponse<String> r = send(dashboard, HttpRequest.newBuilder(at(dashboard, path)).GET());
            assertThat(r.statusCode()).as(path).isEqualTo(401);
            assertThat(message(r)).contains("needs the dashboard's token");
            assertThat(r.body()).as("no server name without the token").doesNotContain(Dashboard.productOnly(client.serverDescription()))
                    .doesNotContain("csrf");
            HttpResponse<String> wrong = send(dashboard, HttpRequest.newBuilder(at(dashboard, path))
                    .header("Cookie", "emq_dashboard_" + dashboard.uri().getPort() + "=not-the-token-at-all").GET());
            assertThat(wrong.statusCode()).as(path).isEqualTo(401);
        }
        HttpResponse<String> css = send(dashboard, HttpRequest.newBuilder(at(dashboard, "/static/dashboard.css")).GET());
        assertThat(css.statusCode()).isEqualTo(200);
        assertThat(css.headers().firstValue("Content-Type")).hasValue("text/css; charset=utf-8");
        HttpResponse<String> header = send(dashboard, HttpRequest.newBuilder(at(dashboard, "/"))
                .header("X-EMQ-Token", TOKEN).GET());
        assertThat(header.statusCode()).isEqualTo(200);
        assertThat(get("/").statusCode()).isEqualTo(200);
    }

    @Test
    void theStartUrlTradesTheTokenForASessionCookieAndDropsItFromTheUrl() {
        HttpResponse<String> start = send(dashboard, HttpRequest.newBuilder(dashboard.startUri()).GET());
        assertThat(start.statusCode()).isEqualTo(303);
        assertThat(start.headers().firstValue("Location")).hasValue("/");
        assertThat(start.headers().firstValue("Set-Cookie")).hasValueSatisfying(c -> assertThat(c)
                .startsWith(cookie(dashboard) + ";").contains("HttpOnly").contains("SameSite=Strict"));
        HttpResponse<String> deep = send(dashboard, HttpRequest.newBuilder(at(dashboard,
                "/queue?name=emails&token=" + TOKEN + "&state=dead")).GET());
        assertThat(deep.headers().firstValue("Location")).hasValue("/queue?name=emails&state=dead");
        HttpResponse<String> wrong = send(dashboard, HttpRequest.newBuilder(at(dashboard, "/?token=guess")).GET());
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.headers().firstValue("Set-Cookie")).isEmpty();
    }

    @Test
    void everyAnswerCarriesTheSecurityHeaders() {
        for (HttpResponse<String> r : java.util.List.of(get("/"), get("/nowhere"),
                send(dashboard, HttpRequest.newBuilder(at(dashboard, "/")).GET()))) {
            assertThat(r.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(v -> assertThat(v)
                    .startsWith("default-src 'self'"));
            assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(r.headers().firstValue("X-Frame-Options")).hasValue("DENY");
            assertThat(r.headers().firstValue("Referrer-Policy")).hasValue("same-origin");
            assertThat(r.body()).doesNotContain("http://", "https://").as("nothing loaded from outside");
        }
    }

    @Test
    void markupInAQueueNameOrAPayloadIsShownAsTextNeverRun() {
        String name = "x<b>\"&'";
        String id = client.queue(name).enqueue("<script>alert(1)</script>");
        HttpResponse<String> overview = get("/");
        assertThat(overview.body()).contains("x&lt;b&gt;&quot;&amp;&#39;").doesNotContain("x<b>");
        HttpResponse<String> job = get("/job?queue=" + Html.url(name) + "&id=" + id);
        assertThat(job.statusCode()).isEqualTo(200);
        assertThat(job.body()).contains("&lt;script&gt;alert(1)&lt;/script&gt;").doesNotContain("<script>");
    }

    @Test
    void aPasswordInTheServersUrlIsNeverShown() {
        try (Dashboard d = Dashboard.builder(client).token(TOKEN)
                .serverDescription("redis://admin:s3cret@10.0.0.5:6379/0 (Redis 7.0.15)").start()) {
            HttpResponse<String> page = get(d, "/");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains("redis://***@10.0.0.5:6379/0").doesNotContain("s3cret", "admin");
        }
    }

    @Test
    void anActionWithoutTheCsrfValueOrFromAnotherSiteIsRefusedAndChangesNothing() {
        Queue q = client.queue("emails");
        q.enqueue("a");
        String csrf = csrf();
        Map<String, String> pause = Map.of("queue", "emails", "action", "pause");
        HttpResponse<String> none = post(dashboard, pause, "Origin", origin(dashboard));
        assertThat(none.statusCode()).isEqualTo(403);
        assertThat(message(none)).contains("CSRF");
        Map<String, String> withCsrf = Map.of("queue", "emails", "action", "pause", "csrf", csrf);
        HttpResponse<String> wrongValue = post(dashboard, Map.of("queue", "emails", "action", "pause", "csrf", "x"));
        assertThat(wrongValue.statusCode()).isEqualTo(403);
        HttpResponse<String> evil = post(dashboard, withCsrf, "Origin", "http://evil.example");
        assertThat(evil.statusCode()).isEqualTo(403);
        assertThat(message(evil)).contains("another origin");
        HttpResponse<String> crossSite = post(dashboard, withCsrf, "Sec-Fetch-Site", "cross-site");
        assertThat(crossSite.statusCode()).isEqualTo(403);
        HttpResponse<String> noToken = send(dashboard, HttpRequest.newBuilder(at(dashboard, "/action"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("queue=emails&action=pause&csrf=" + csrf)));
        assertThat(noToken.statusCode()).isEqualTo(401);
        HttpResponse<String> viaGet = get("/action?queue=emails&action=pause&csrf=" + csrf);
        assertThat(viaGet.statusCode()).isEqualTo(405);
        assertThat(q.isPaused()).as("no refused request paused the queue").isFalse();

        HttpResponse<String> ok = post(dashboard, withCsrf, "Origin", origin(dashboard), "Sec-Fetch-Site", "same-origin");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(q.isPaused()).isTrue();
    }

    @Test
    void readOnlyModeShowsThePagesWithoutButtonsAndRefusesEveryAction() {
        Queue q = client.queue("emails");
        String id = q.enqueue("a");
        HttpResponse<String> page = get(readOnly, "/queue?name=emails");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("read-only").doesNotContain("/confirm");
        assertThat(get(readOnly, "/job?queue=emails&id=" + id).body()).doesNotContain("/confirm");
        assertThat(get("/job?queue=emails&id=" + id).body()).contains("/confirm?queue=emails&amp;action=remove");

        HttpResponse<String> confirm = get(readOnly, "/confirm?queue=emails&action=remove&id=" + id);
        assertThat(confirm.statusCode()).isEqualTo(403);
        assertThat(message(confirm)).contains("read-only");
        HttpResponse<String> post = post(readOnly, Map.of("queue", "emails", "action", "remove", "id", id,
                "csrf", csrf()), "Origin", origin(readOnly));
        assertThat(post.statusCode()).isEqualTo(403);
        assertThat(message(post)).contains("read-only");
        assertThat(q.inspect(id)).isPresent();
    }
}
