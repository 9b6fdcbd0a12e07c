package io.echomq.spring;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts a test application the way a user's starts: auto-configuration from the class path. */
public final class TestApps {
    private TestApps() {
    }

    /**
     * @param config the application's configuration class (with {@code @EnableAutoConfiguration})
     * @param redisUrl the test kit's Redis
     * @param properties more {@code name=value} properties
     * @return the started context; the caller closes it
     */
    public static ConfigurableApplicationContext start(Class<?> config, String redisUrl, String... properties) {
        List<String> all = new ArrayList<>(List.of("echomq.redis.url=" + redisUrl, "spring.main.banner-mode=off",
                "spring.jmx.enabled=false", "logging.level.root=warn"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(config).web(WebApplicationType.NONE).logStartupInfo(false)
                .properties(all.toArray(String[]::new)).run();
    }
}
