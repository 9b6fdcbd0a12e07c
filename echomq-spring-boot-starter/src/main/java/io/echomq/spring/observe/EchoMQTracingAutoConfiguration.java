package io.echomq.spring.observe;

import io.echomq.opentelemetry.EchoMQTracing;
import io.echomq.spring.EchoMQAutoConfiguration;
import io.echomq.spring.EchoMQProperties;
import io.opentelemetry.api.OpenTelemetry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * OpenTelemetry spans for the starter's clients, when {@code echomq-opentelemetry} is on the class
 * path, the application has an {@link OpenTelemetry} bean (Spring Boot's OpenTelemetry support
 * makes one, or the application's own SDK) and {@code echomq.tracing.enabled} is not false: an
 * {@link EchoMQTracing} (unless the application defines its own), which
 * {@link EchoMQInstrumentation} hands to both clients. Enqueues then make {@code send} spans and
 * handled jobs {@code process} spans; lock spans only with {@code echomq.tracing.lock-spans=true}.
 * Without the module or the bean it adds nothing.
 */
@AutoConfiguration(after = EchoMQAutoConfiguration.class,
        afterName = "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration")
@ConditionalOnClass(name = {"io.echomq.opentelemetry.EchoMQTracing", "io.opentelemetry.api.OpenTelemetry"})
@ConditionalOnProperty(name = "echomq.tracing.enabled", matchIfMissing = true)
public class EchoMQTracingAutoConfiguration {

    /** Created by Spring. */
    public EchoMQTracingAutoConfiguration() {
    }

    /**
     * @param openTelemetry the application's OpenTelemetry
     * @param properties for {@code echomq.tracing.lock-spans}
     * @return the tracing instrumentation
     */
    @Bean
    @ConditionalOnBean(OpenTelemetry.class)
    @ConditionalOnMissingBean
    public EchoMQTracing echomqTracing(OpenTelemetry openTelemetry, EchoMQProperties properties) {
        return EchoMQTracing.builder(openTelemetry).lockSpans(properties.getTracing().isLockSpans()).build();
    }
}
