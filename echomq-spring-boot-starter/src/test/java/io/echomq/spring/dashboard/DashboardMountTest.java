package io.echomq.spring.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.dashboard.DashboardServlet;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.spring.EchoMQAutoConfiguration;
import io.echomq.spring.InvalidEchoMQPropertyException;
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
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The dashboard mounted in a real Spring Boot servlet application (Tomcat on a loopback port,
 * Spring MVC beside it, context path {@code /app}), configured with the properties that
 * docs/dashboard.md shows: its pages under {@code /app/echomq}, every link below that mount, the
 * token and CSRF rules, an action read back in Redis; and, without a server, when it is not there.
 */
class DashboardMountTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    static final String TOKEN = "mount-test-token-0123456789";
    static final String MOUNT = "/app/echomq";
    /** Every URL attribute of a page, as a browser would follow it. */
    static final Pattern URL_ATTRIBUTE = Pattern.compile("\\s(?:href|src|action|formaction)=\"([^\"]*)\"");
    static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5)).build();

    static ConfigurableApplicationContext app;
    static String base;

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }

    @BeforeAll
    static void start() {
        app = new SpringApplicationBuilder(App.class).web(WebApplicationType.SERVLET).logStartupInfo(false)
                .properties("echomq.redis.url=" + REDIS.url(), "spring.main.banner-mode=off", "spring.jmx.enabled=false",
                        "logging.level.root=warn", "server.address=127.0.0.1", "server.port=0",
                        "server.servlet.context-path=/app",
                        // As docs/dashboard.md shows them:
                        "echomq.dashboard.enabled=true", "echomq.dashboard.token=" + TOKEN)
                .run();
        base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
    }

    @AfterAll
    static void stop() {
        app.close();
    }

    @Test
    void pagesLinksTokenCsrfAndAnActionUnderTheMountPath() {
        Queue mail = app.getBean(QueueClient.class).queue("mount-mail");
        String pending = mail.enqueue("hello");
        String dead = mail.enqueue("broken".getBytes(), EnqueueOptions.defaults().withMaxAttempts(1)).id();
        mail.claim(Duration.ofSeconds(30)).orElseThrow();   // the first, so that the second is left pending
        var second = mail.claim(Duration.ofSeconds(30)).orElseThrow();
        assertThat(second.id()).isEqualTo(dead);
        second.fail("no");

        HttpResponse<String> anonymous = get("/", null);
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.body()).doesNotContain("mount-mail");
        assertThat(anonymous.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(
                csp -> assertThat(csp).contains("default-src 'self'"));
        assertThat(anonymous.headers().firstValue("X-Frame-Options")).hasValue("DENY");

        HttpResponse<String> start = get("/queue?name=mount-mail&token=" + TOKEN, null);
        assertThat(start.statusCode()).isEqualTo(303);
        assertThat(start.headers().firstValue("Location")).hasValue(MOUNT + "/queue?name=mount-mail");
        String setCookie = start.headers().firstValue("Set-Cookie").orElseThrow();
        assertThat(setCookie).startsWith("emq_dashboard=" + TOKEN).contains("Path=" + MOUNT, "HttpOnly", "SameSite=Strict");
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));

        HttpResponse<String> overview = get("/", cookie);
        assertThat(overview.statusCode()).isEqualTo(200);
        assertThat(overview.body()).contains("mount-mail");
        HttpResponse<String> queue = get("/queue?name=mount-mail&state=dead", cookie);
        assertThat(queue.statusCode()).isEqualTo(200);
        assertThat(queue.body()).contains(dead);
        HttpResponse<String> job = get("/job?queue=mount-mail&id=" + dead, cookie);
        assertThat(job.statusCode()).isEqualTo(200);
        assertThat(job.body()).contains("broken");
        HttpResponse<String> missing = get("/no-such-page", cookie);
        assertThat(missing.statusCode()).isEqualTo(404);
        for (HttpResponse<String> page : List.of(overview, queue, job, missing)) {
            List<String> urls = urls(page.body());
            assertThat(urls).as("the URLs of %s", page.uri()).isNotEmpty()
                    .allSatisfy(u -> assertThat(u).startsWith(MOUNT + "/"));
            // Every link answers under the mount, not with the application's 404.
            for (String u : links(page.body())) {
                int status = send(HttpRequest.newBuilder(URI.create(base + u.replace("&amp;", "&")))
                        .header("Cookie", cookie).GET()).statusCode();
                assertThat(status).as("GET %s", u).isEqualTo(200);
            }
        }
        assertThat(urls(job.body())).contains(MOUNT + "/static/dashboard.css", MOUNT + "/",
                MOUNT + "/queue?name=mount-mail", MOUNT + "/confirm?queue=mount-mail&amp;action=redrive&amp;id=" + dead);

        HttpResponse<String> confirm = get("/confirm?queue=mount-mail&action=redrive&id=" + dead, cookie);
        assertThat(confirm.statusCode()).isEqualTo(200);
        assertThat(urls(confirm.body())).contains(MOUNT + "/action");
        Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(confirm.body());
        assertThat(csrf.find()).isTrue();
        String form = "csrf=" + csrf.group(1) + "&queue=mount-mail&action=redrive&id=" + dead;

        assertThat(post(form, null).statusCode()).as("without the token").isEqualTo(401);
        assertThat(post("queue=mount-mail&action=redrive&id=" + dead, cookie).statusCode()).as("without the CSRF value")
                .isEqualTo(403);
        assertThat(post(form, cookie, "Origin", "http://evil.example").statusCode()).as("from another origin")
                .isEqualTo(403);
        assertThat(mail.inspect(dead).orElseThrow().state()).isEqualTo("dead");

        HttpResponse<String> done = post(form, cookie, "Origin", base, "Sec-Fetch-Site", "same-origin");
        assertThat(done.statusCode()).isEqualTo(200);
        assertThat(done.body()).contains("REDRIVEN");
        assertThat(urls(done.body())).allSatisfy(u -> assertThat(u).startsWith(MOUNT + "/"));
        assertThat(mail.inspect(dead).orElseThrow().state()).isEqualTo("pending");
        assertThat(mail.inspect(pending)).isPresent();
    }

    @Test
    void absentUnlessEnabledInAServletApplicationAndCheckedWhenThere() {
        AutoConfigurations auto = AutoConfigurations.of(EchoMQAutoConfiguration.class,
                EchoMQDashboardAutoConfiguration.class);
        WebApplicationContextRunner web = new WebApplicationContextRunner().withConfiguration(auto)
                .withPropertyValues("echomq.redis.url=" + REDIS.url());
        web.run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean("echomqDashboard"));
        web.withPropertyValues("echomq.dashboard.enabled=false")
                .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean("echomqDashboard"));
        new ApplicationContextRunner().withConfiguration(auto)
                .withPropertyValues("echomq.redis.url=" + REDIS.url(), "echomq.dashboard.enabled=true")
                .run(ctx -> assertThat(ctx).hasNotFailed().doesNotHaveBean("echomqDashboard"));

        web.withPropertyValues("echomq.dashboard.enabled=true", "echomq.dashboard.path=/ops/jobs",
                "echomq.dashboard.read-only=true").run(ctx -> {
                    ServletRegistrationBean<?> r = ctx.getBean("echomqDashboard", ServletRegistrationBean.class);
                    assertThat(r.getUrlMappings()).containsExactly("/ops/jobs/*");
                    DashboardServlet servlet = (DashboardServlet) r.getServlet();
                    assertThat(servlet.readOnly()).isTrue();
                    assertThat(servlet.token()).hasSize(43);
                });
        for (String[] bad : new String[][] {{"path", "/"}, {"path", "echomq"}, {"path", "/echomq/"}, {"token", "short"}}) {
            web.withPropertyValues("echomq.dashboard.enabled=true", "echomq.dashboard." + bad[0] + "=" + bad[1])
                    .run(ctx -> assertThat(ctx).getFailure().rootCause()
                            .isInstanceOfSatisfying(InvalidEchoMQPropertyException.class,
                                    e -> assertThat(e.property()).isEqualTo("echomq.dashboard." + bad[0])));
        }
    }

    /** @return the distinct {@code href} targets of a page: what a click follows with a GET */
    static List<String> links(String html) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("\\shref=\"([^\"]*)\"").matcher(html);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out.stream().distinct().toList();
    }

    static List<String> urls(String html) {
        List<String> out = new ArrayList<>();
        Matcher m = URL_ATTRIBUTE.matcher(html);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    static HttpResponse<String> get(String pathAndQuery, String cookie) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + MOUNT + pathAndQuery)).GET();
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        return send(b);
    }

    static HttpResponse<String> post(String form, String cookie, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + MOUNT + "/action"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form));
        if (cookie != null) {
            b.header("Cookie", cookie);
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return send(b);
    }

    static HttpResponse<String> send(HttpRequest.Builder b) {
        try {
            return HTTP.send(b.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
