package io.echomq.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import io.echomq.testkit.RedisExtension;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One real server, one queue client and two dashboards on it (one acting, one read-only) per test
 * class; an empty keyspace per test. Requests go over real HTTP with the JDK's client, which
 * follows no redirect and keeps no cookie, so that each test says exactly what it sends.
 */
abstract class DashboardTestBase {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    static final String TOKEN = "test-token-0123456789abcdef";

    static QueueClient client;
    static LockClient locks;
    static Dashboard dashboard;
    static Dashboard readOnly;
    static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void start() {
        client = QueueClient.create(REDIS.url());
        locks = LockClient.create(REDIS.url());
        dashboard = Dashboard.builder(client).locks(locks).token(TOKEN).rescanAfter(Duration.ZERO).start();
        readOnly = Dashboard.builder(client).locks(locks).token(TOKEN).readOnly(true).rescanAfter(Duration.ZERO)
                .start();
    }

    @AfterAll
    static void stop() {
        dashboard.close();
        readOnly.close();
        client.close();
        locks.close();
    }

    @BeforeEach
    void flush() {
        REDIS.flushAll();
    }

    /** A GET of {@code pathAndQuery} on {@code d}, with the session cookie. */
    static HttpResponse<String> get(Dashboard d, String pathAndQuery) {
        return send(d, HttpRequest.newBuilder(at(d, pathAndQuery)).header("Cookie", cookie(d)).GET());
    }

    static HttpResponse<String> get(String pathAndQuery) {
        return get(dashboard, pathAndQuery);
    }

    /** A POST of the form on {@code d} with the cookie and the extra headers (name, value, …). */
    static HttpResponse<String> post(Dashboard d, Map<String, String> form, String... headers) {
        return post(d, "/action", form, headers);
    }

    /** A POST of the form to {@code path} on {@code d} with the cookie and the extra headers (name, value, …). */
    static HttpResponse<String> post(Dashboard d, String path, Map<String, String> form, String... headers) {
        String body = form.entrySet().stream().map(e -> Html.url(e.getKey()) + "=" + Html.url(e.getValue()))
                .collect(Collectors.joining("&"));
        HttpRequest.Builder b = HttpRequest.newBuilder(at(d, path)).header("Cookie", cookie(d))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return send(d, b);
    }

    /** Runs an action as the confirmation page's form does: its CSRF value, same-origin headers. */
    static HttpResponse<String> act(String queue, String action, String id) {
        Map<String, String> form = new java.util.LinkedHashMap<>();
        form.put("csrf", csrf());
        form.put("queue", queue);
        form.put("action", action);
        if (id != null) {
            form.put("id", id);
        }
        return post(dashboard, form, "Origin", origin(dashboard), "Sec-Fetch-Site", "same-origin");
    }

    /** @return the CSRF value, read from a confirmation page as a browser would */
    static String csrf() {
        client.queue("csrf-probe").enqueue("x");
        HttpResponse<String> page = get("/confirm?queue=csrf-probe&action=pause");
        assertThat(page.statusCode()).isEqualTo(200);
        client.queue("csrf-probe").delete(true);
        Matcher m = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page.body());
        assertThat(m.find()).as("a csrf field in %s", page.body()).isTrue();
        return m.group(1);
    }

    static String origin(Dashboard d) {
        String u = d.uri().toString();
        return u.substring(0, u.length() - 1);
    }

    static String cookie(Dashboard d) {
        return "emq_dashboard_" + d.uri().getPort() + "=" + TOKEN;
    }

    static URI at(Dashboard d, String pathAndQuery) {
        return d.uri().resolve(pathAndQuery);
    }

    static HttpResponse<String> send(Dashboard d, HttpRequest.Builder b) {
        try {
            return HTTP.send(b.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** @return the text of each cell of the table row whose first cell holds {@code first} */
    static List<String> row(String html, String first) {
        Matcher rows = Pattern.compile("<tr>(.*?)</tr>", Pattern.DOTALL).matcher(html);
        while (rows.find()) {
            List<String> cells = new ArrayList<>();
            Matcher c = Pattern.compile("<td[^>]*>(.*?)</td>", Pattern.DOTALL).matcher(rows.group(1));
            while (c.find()) {
                cells.add(c.group(1).replaceAll("<[^>]+>", "").strip());
            }
            if (!cells.isEmpty() && cells.get(0).equals(first)) {
                return cells;
            }
        }
        throw new AssertionError("no row '" + first + "' in " + html);
    }

    /** @return the one-line message of an error page */
    static String message(HttpResponse<String> r) {
        Matcher m = Pattern.compile("<p class=\"error\">(.*?)</p>", Pattern.DOTALL).matcher(r.body());
        assertThat(m.find()).as("an error message in %s", r.body()).isTrue();
        return m.group(1).replace("&#39;", "'").replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">")
                .replace("&amp;", "&");
    }
}
