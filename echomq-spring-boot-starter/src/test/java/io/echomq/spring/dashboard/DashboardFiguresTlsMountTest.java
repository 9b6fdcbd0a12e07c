package io.echomq.spring.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.server.TlsRedisServer;
import io.echomq.testkit.TestCertificates;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The mounted "Why it is safe" page on a {@code rediss://} server with no plain port, signed by a
 * CA generated for the run and named by {@code echomq.redis.trusted-certificates}: the acts'
 * connections trust that CA as the starter's clients do, and the race runs with exactly one OK.
 */
@Timeout(120)
class DashboardFiguresTlsMountTest {
    static TestCertificates certs;
    static TlsRedisServer tls;
    static ConfigurableApplicationContext app;

    @BeforeAll
    static void start() {
        certs = TestCertificates.generate("EchoMQ starter figures CA");
        tls = TlsRedisServer.start(certs);
        app = new SpringApplicationBuilder(DashboardFiguresMountTest.App.class).web(WebApplicationType.SERVLET)
                .logStartupInfo(false)
                .properties("echomq.redis.url=" + tls.url(), "echomq.redis.trusted-certificates=" + certs.ca(),
                        "spring.main.banner-mode=off", "spring.jmx.enabled=false", "logging.level.root=warn",
                        "server.address=127.0.0.1", "server.port=0", "echomq.dashboard.enabled=true",
                        "echomq.dashboard.token=" + DashboardFiguresMountTest.TOKEN)
                .run();
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
        if (tls != null) {
            tls.close();
        }
        certs.delete();
    }

    @Test
    void theRaceRunsOverTlsWithTheConfiguredCa() {
        String base = DashboardFiguresMountTest.base(app);
        HttpResponse<String> page = DashboardFiguresMountTest.send(HttpRequest.newBuilder(
                URI.create(base + DashboardFiguresMountTest.MOUNT + "/safety"))
                .header("X-EMQ-Token", DashboardFiguresMountTest.TOKEN).GET());
        assertThat(page.statusCode()).isEqualTo(200);

        HttpResponse<String> r = DashboardFiguresMountTest.run(base,
                "csrf=" + DashboardFiguresMountTest.csrf(page.body()) + "&act=race");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<String> readouts = DashboardFiguresMountTest.readouts(r.body());
        assertThat(readouts).hasSize(4);
        assertThat(readouts.stream().filter(t -> t.contains(" → OK: "))).hasSize(1);
        assertThat(readouts.stream().filter(t -> t.contains(" → nil: "))).hasSize(3);
    }
}
