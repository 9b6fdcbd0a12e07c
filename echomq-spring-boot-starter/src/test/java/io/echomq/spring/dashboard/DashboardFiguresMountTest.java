package io.echomq.spring.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The "Why it is safe" page of the dashboard a Spring Boot application mounts: its run buttons
 * act on the server the starter's own clients use (here named only by {@code spring.data.redis.url},
 * so the URL comes through the starter's resolution), and read-only mode offers no run and refuses
 * one.
 */
class DashboardFiguresMountTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    static final String TOKEN = "figures-mount-token-0123456789";
    static final String MOUNT = "/echomq";
    static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static ConfigurableApplicationContext acting;
    static ConfigurableApplicationContext readOnly;

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }

    @BeforeAll
    static void start() {
        acting = app(false);
        readOnly = app(true);
    }

    static ConfigurableApplicationContext app(boolean readOnly) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET).logStartupInfo(false)
                .properties("spring.data.redis.url=" + REDIS.url(), "spring.main.banner-mode=off",
                        "spring.jmx.enabled=false", "logging.level.root=warn", "server.address=127.0.0.1",
                        "server.port=0", "echomq.dashboard.enabled=true", "echomq.dashboard.token=" + TOKEN,
                        "echomq.dashboard.read-only=" + readOnly)
                .run();
    }

    @AfterAll
    static void stop() {
        acting.close();
        readOnly.close();
    }

    @Test
    void theMountedPageRunsTheRaceOnTheStartersServerWithExactlyOneOk() {
        String base = base(acting);
        HttpResponse<String> page = send(HttpRequest.newBuilder(URI.create(base + MOUNT + "/safety"))
                .header("X-EMQ-Token", TOKEN).GET());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("action=\"" + MOUNT + "/safety\"").doesNotContain("without a server URL");

        HttpResponse<String> r = run(base, "csrf=" + csrf(page.body()) + "&act=race");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> readouts = readouts(r.body());
        assertThat(readouts).hasSize(4);
        assertThat(readouts.stream().filter(t -> t.contains(" → OK: "))).hasSize(1);
        assertThat(readouts.stream().filter(t -> t.contains(" → nil: "))).hasSize(3);
        assertThat(REDIS.raw().call("KEYS", "emq:figures:*")).isEqualTo(List.of());
    }

    @Test
    void readOnlyOffersNoRunAndRefusesOne() {
        String base = base(readOnly);
        HttpResponse<String> page = send(HttpRequest.newBuilder(URI.create(base + MOUNT + "/safety"))
                .header("X-EMQ-Token", TOKEN).GET());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("Read-only: runs are turned off").doesNotContain("name=\"act\"");

        HttpResponse<String> r = run(base, "csrf=" + csrf(page.body()) + "&act=race");

        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).doesNotContain("Static verdicts");
        assertThat(REDIS.raw().call("KEYS", "emq:figures:*")).isEqualTo(List.of());
    }

    static String base(ConfigurableApplicationContext app) {
        return "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
    }

    static HttpResponse<String> run(String base, String form) {
        return send(HttpRequest.newBuilder(URI.create(base + MOUNT + "/safety"))
                .header("X-EMQ-Token", TOKEN).header("Content-Type", "application/x-www-form-urlencoded")
                .header("Origin", base).header("Sec-Fetch-Site", "same-origin")
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(form)));
    }

    static String csrf(String html) {
        Matcher m = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(html);
        return m.find() ? m.group(1) : "none";
    }

    static List<String> readouts(String html) {
        int at = html.indexOf("<figure class=\"fig\" id=\"race\"");
        assertThat(at).as("the race's figure in %s", html).isNotNegative();
        String fig = html.substring(at, html.indexOf("</figure>", at));
        Matcher m = Pattern.compile("<output class=\"ro\">(.*?)</output>").matcher(fig);
        List<String> all = new ArrayList<>();
        while (m.find()) {
            all.add(m.group(1).replace("&#39;", "'").replace("&quot;", "\"").replace("&lt;", "<")
                    .replace("&gt;", ">").replace("&amp;", "&"));
        }
        return all;
    }

    static HttpResponse<String> send(HttpRequest.Builder b) {
        try {
            return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
