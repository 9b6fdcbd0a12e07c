package io.echomq.spring.dashboard;

import io.echomq.dashboard.DashboardServlet;
import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import io.echomq.spring.EchoMQAutoConfiguration;
import io.echomq.spring.EchoMQProperties;
import io.echomq.spring.InvalidEchoMQPropertyException;
import io.echomq.spring.RedisUrlResolver;
import java.nio.file.Path;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The EchoMQ dashboard served by a Spring Boot servlet application at {@code echomq.dashboard.path}
 * ({@code /echomq} by default): a {@link DashboardServlet} on the application's {@link QueueClient}
 * (and its {@link LockClient} for the locks page, when it has one), registered with the servlet
 * container.
 *
 * <p>Only when all of these hold: {@code echomq.dashboard.enabled=true} (off by default: the
 * dashboard shows payloads and acts on jobs, on the application's own port); {@code echomq-dashboard}
 * and the servlet API are on the class path; the application is a servlet web application. Its
 * safety rules are the dashboard's own (token, CSRF and origin checks, read-only mode, security
 * headers); the application's filters, Spring Security's among them, run before it.
 *
 * <p>When the {@link QueueClient} is the starter's own, the "Why it is safe" page runs its lock acts
 * on the server that client uses: the URL {@link RedisUrlResolver} chooses from the
 * {@code echomq.*} and {@code spring.data.redis.*} settings, with
 * {@code echomq.redis.trusted-certificates} when set. An application that defines its own
 * {@link QueueClient} bean gets the page without its run buttons: its server is not in the settings.
 * In read-only mode the page offers no run, as for every action.
 *
 * <p>A bad {@code echomq.dashboard.path} or {@code token} fails startup with an
 * {@link InvalidEchoMQPropertyException} naming it. Without {@code echomq.dashboard.token} a random
 * token is made and logged once, at WARN, with the path to open.
 */
@AutoConfiguration(after = EchoMQAutoConfiguration.class)
@ConditionalOnClass(name = {"io.echomq.dashboard.DashboardServlet", "jakarta.servlet.http.HttpServlet"})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(name = "echomq.dashboard.enabled", havingValue = "true")
@EnableConfigurationProperties(DashboardProperties.class)
public class EchoMQDashboardAutoConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(EchoMQDashboardAutoConfiguration.class);
    /** The name of the starter's own {@link QueueClient} bean ({@link EchoMQAutoConfiguration}). */
    private static final String OWN_CLIENT = "echomqQueueClient";
    /** One or more {@code /segment}s of URL-safe characters, no trailing slash, no wildcard. */
    private static final Pattern PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

    /** Created by Spring. */
    public EchoMQDashboardAutoConfiguration() {
    }

    /**
     * @return the dashboard's servlet, mapped to {@code <path>/*}
     * @throws InvalidEchoMQPropertyException if {@code echomq.dashboard.path} or {@code token} is refused, or
     *     the Redis settings are (as for the clients)
     */
    @Bean
    @ConditionalOnBean(QueueClient.class)
    public ServletRegistrationBean<DashboardServlet> echomqDashboard(QueueClient client, ObjectProvider<LockClient> locks,
                                                                     DashboardProperties properties, Environment environment,
                                                                     ObjectProvider<EchoMQProperties> echomq,
                                                                     ListableBeanFactory beans) {
        String path = properties.getPath();
        if (path == null || !PATH.matcher(path).matches()) {
            throw new InvalidEchoMQPropertyException("echomq.dashboard.path",
                    "must be one or more /segments of A-Z a-z 0-9 . _ ~ - with no trailing slash, such as /echomq; was '"
                            + path + "'");
        }
        DashboardServlet.Builder builder = DashboardServlet.builder(client).readOnly(properties.isReadOnly());
        if (properties.getToken() != null) {
            try {
                builder.token(properties.getToken());
            } catch (IllegalArgumentException e) {
                throw new InvalidEchoMQPropertyException("echomq.dashboard.token", e.getMessage());
            }
        }
        locks.ifUnique(builder::locks);
        EchoMQProperties settings = echomq.getIfAvailable();
        if (settings != null && beans.containsBeanDefinition(OWN_CLIENT)) {
            String url = RedisUrlResolver.url(settings, environment);
            Path ca = settings.getRedis().getTrustedCertificates();
            if (ca == null) {
                builder.figures(url);
            } else {
                builder.figures(url, ca);
            }
        }
        DashboardServlet servlet = builder.build();
        if (properties.getToken() == null) {
            String context = environment.getProperty("server.servlet.context-path", "");
            LOG.warn("EchoMQ dashboard: open {}{}/?token={} (a new random token at each start; set "
                    + "echomq.dashboard.token to keep one)", context, path, servlet.token());
        }
        ServletRegistrationBean<DashboardServlet> registration = new ServletRegistrationBean<>(servlet, path + "/*");
        registration.setName("echomqDashboard");
        return registration;
    }
}
