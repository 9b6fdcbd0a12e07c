package io.echomq.test.spring;

import io.echomq.test.TestRedis;
import java.util.Map;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Adds the test server's properties, above every other source, and the {@link ApplicationQueues} bean to a test's
 * application context. Equal for equal annotation values, so that Spring caches and shares one context for them.
 */
final class EchoMQContextCustomizer implements ContextCustomizer {
    /** The property source's name, as the environment lists it. */
    static final String SOURCE = "echomqTest";

    private final boolean workers;

    EchoMQContextCustomizer(boolean workers) {
        this.workers = workers;
    }

    @Override
    public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
        TestRedis redis = TestRedis.shared();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(SOURCE, Map.of(
                "echomq.redis.url", redis.url(),
                "echomq.worker.enabled", Boolean.toString(workers))));
        context.getBeanFactory().registerSingleton(ApplicationQueues.BEAN_NAME, new ApplicationQueues(context));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof EchoMQContextCustomizer c && c.workers == workers;
    }

    @Override
    public int hashCode() {
        return Boolean.hashCode(workers);
    }
}
