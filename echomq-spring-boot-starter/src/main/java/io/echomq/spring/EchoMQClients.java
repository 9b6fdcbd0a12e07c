package io.echomq.spring;

import io.echomq.lock.LockClient;
import io.echomq.observe.Instrumentation;
import io.echomq.queue.QueueClient;
import java.time.Duration;
import org.springframework.core.env.Environment;

/**
 * Builds the two clients from the properties and the context's instrumentation: every value goes through the core builder's own
 * check ({@link PropertyChecks}), so a bad one fails with the property's name before any
 * connection is tried.
 */
final class EchoMQClients {
    private EchoMQClients() {
    }

    /**
     * @throws InvalidEchoMQPropertyException if a property is refused
     * @throws io.echomq.RedisCommandException if Redis cannot be reached
     */
    static LockClient lockClient(EchoMQProperties properties, Environment environment, Instrumentation instrumentation) {
        RedisUrlResolver.Resolved url = RedisUrlResolver.resolve(properties, environment);
        EchoMQProperties.Redis redis = properties.getRedis();
        LockClient.Builder b = LockClient.builder();
        PropertyChecks.apply(url.property(), url.url(), b::redisUrl);
        PropertyChecks.apply("echomq.redis.command-timeout", redis.getCommandTimeout(), b::commandTimeout);
        if (redis.getTrustedCertificates() != null) {
            PropertyChecks.apply("echomq.redis.trusted-certificates", redis.getTrustedCertificates(), b::trustedCertificates);
        }
        PropertyChecks.apply("echomq.lock.namespace", properties.getLock().getNamespace(), b::namespace);
        PropertyChecks.apply("echomq.lock.poll-interval", properties.getLock().getPollInterval(), b::pollInterval);
        b.markFencesForProtocol1(properties.getLock().isMarkFencesForProtocol1());
        String label = properties.getLock().getHolderLabel();
        if (label == null) {
            label = defaultHolderLabel(environment);
        }
        if (!label.isEmpty()) {
            PropertyChecks.apply("echomq.lock.holder-label", label, b::holderLabel);
        }
        b.instrumentation(instrumentation);
        return build(b::build);
    }

    /**
     * @return {@code <host>:<pid>:<spring.application.name>} ({@code app} without a name), the host
     *     from {@code HOSTNAME} (no name lookup) else {@code localhost}; other characters than a
     *     label may hold become {@code _}, cut to {@link io.echomq.lock.LockInfo#MAX_LABEL}
     */
    static String defaultHolderLabel(Environment environment) {
        String host = System.getenv("HOSTNAME");
        String label = (host == null || host.isEmpty() ? "localhost" : host) + ":" + ProcessHandle.current().pid()
                + ":" + environment.getProperty("spring.application.name", "app");
        label = label.replaceAll("[^A-Za-z0-9._:@/-]", "_");
        return label.length() > io.echomq.lock.LockInfo.MAX_LABEL
                ? label.substring(0, io.echomq.lock.LockInfo.MAX_LABEL) : label;
    }

    /**
     * @throws InvalidEchoMQPropertyException if a property is refused
     * @throws io.echomq.RedisCommandException if Redis cannot be reached
     */
    static QueueClient queueClient(EchoMQProperties properties, Environment environment, Instrumentation instrumentation) {
        RedisUrlResolver.Resolved url = RedisUrlResolver.resolve(properties, environment);
        EchoMQProperties.Redis redis = properties.getRedis();
        QueueClient.Builder b = QueueClient.builder();
        PropertyChecks.apply(url.property(), url.url(), b::redisUrl);
        PropertyChecks.apply("echomq.redis.command-timeout", redis.getCommandTimeout(), b::commandTimeout);
        if (redis.getTrustedCertificates() != null) {
            PropertyChecks.apply("echomq.redis.trusted-certificates", redis.getTrustedCertificates(), b::trustedCertificates);
        }
        PropertyChecks.apply("echomq.queue.max-payload-bytes", properties.getQueue().getMaxPayloadBytes(), b::maxPayloadBytes);
        PropertyChecks.apply("echomq.queue.retain-completed", properties.getQueue().getRetainCompleted(), b::retainCompleted);
        PropertyChecks.apply("echomq.schedules.missed-after", properties.getSchedules().getMissedAfter(), b::missedFiresAfter);
        int replicas = properties.getQueue().getWaitForReplicas();
        PropertyChecks.apply("echomq.queue.wait-for-replicas", replicas, n -> b.waitForReplicas(n, Duration.ofMillis(1)));
        PropertyChecks.apply("echomq.queue.replica-timeout", properties.getQueue().getReplicaTimeout(), timeout -> {
            b.waitForReplicas(replicas, timeout);
            if (replicas > 0 && redis.getCommandTimeout() != null && timeout.compareTo(redis.getCommandTimeout()) >= 0) {
                throw new IllegalArgumentException("must be shorter than echomq.redis.command-timeout ("
                        + redis.getCommandTimeout() + "), was " + timeout);
            }
        });
        b.instrumentation(instrumentation);
        return build(b::build);
    }

    /**
     * Connects. Every setting was checked as it was given; the one refusal left to the build is
     * trusted certificates for a URL without TLS, reported against the certificates' property.
     */
    private static <T> T build(java.util.function.Supplier<T> build) {
        try {
            return build.get();
        } catch (IllegalArgumentException e) {
            throw new InvalidEchoMQPropertyException("echomq.redis.trusted-certificates",
                    io.echomq.RedisUrl.redactAll(String.valueOf(e.getMessage())));
        }
    }
}
