package io.echomq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.RedisCommandException;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.Locks;
import io.echomq.queue.QueueClient;
import io.echomq.testkit.RedisExtension;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** The clients as beans: where they connect, that they close, and how a bad property stops startup. */
class AutoConfigurationTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(EchoMQAutoConfiguration.class));

    @Test
    void clientsConnectToTheConfiguredUrlAndCloseWithTheContext() {
        LockClient[] kept = new LockClient[1];
        runner.withPropertyValues("echomq.redis.url=" + REDIS.url()).run(ctx -> {
            assertThat(ctx).hasNotFailed().hasSingleBean(LockClient.class).hasSingleBean(QueueClient.class);
            kept[0] = ctx.getBean(LockClient.class);
            try (Lease lease = kept[0].tryAcquire("auto-config", Duration.ofSeconds(5)).orElseThrow()) {
                assertThat(lease.isHeld()).isTrue();
            }
            ctx.getBean(QueueClient.class).queue("auto-config").enqueue("x");
            assertThat(ctx.getBean(QueueClient.class).queue("auto-config").stats().pending()).isEqualTo(1);
        });
        assertThatThrownBy(() -> kept[0].tryAcquire("auto-config", Duration.ofSeconds(5)))
                .isInstanceOfAny(RedisCommandException.class, IllegalStateException.class);
    }

    @Test
    void withoutItsOwnUrlItUsesSpringDataRedis() {
        String[] settings;
        if (RedisExtension.clusterMode()) {
            settings = new String[] {"spring.data.redis.cluster.nodes=" + REDIS.url().substring("redis-cluster://".length())};
        } else {
            URI uri = URI.create(REDIS.url());
            settings = new String[] {"spring.data.redis.host=" + uri.getHost(), "spring.data.redis.port=" + uri.getPort()};
        }
        runner.withPropertyValues(settings).run(ctx -> {
            assertThat(ctx).hasNotFailed();
            assertThat(ctx.getBean(LockClient.class).tryAcquire("spring-data", Duration.ofSeconds(1))).isPresent();
            assertThat(ctx.getBean(LockClient.class).serverDescription().contains(" Cluster "))
                    .isEqualTo(RedisExtension.clusterMode());
        });
    }

    @Test
    void anApplicationsOwnLocksBeanIsKept() {
        runner.withPropertyValues("echomq.redis.url=" + REDIS.url()).withUserConfiguration(OwnLocks.class).run(ctx -> {
            assertThat(ctx).hasNotFailed().hasSingleBean(Locks.class);
            assertThat(ctx.getBean(Locks.class)).isSameAs(ctx.getBean("myLocks"));
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnLocks {
        @Bean(destroyMethod = "close")
        LockClient myLocks() {
            return LockClient.create(REDIS.url());
        }
    }

    @Test
    void theLockBeanLabelsItsHoldersWithHostPidAndApplicationUnlessToldOtherwise() {
        runner.withPropertyValues("echomq.redis.url=" + REDIS.url(), "spring.application.name=billing").run(ctx -> {
            try (Lease lease = ctx.getBean(LockClient.class).tryAcquire("labelled", Duration.ofSeconds(5)).orElseThrow()) {
                assertThat(ctx.getBean(LockClient.class).inspect("labelled").holderLabel().orElseThrow())
                        .endsWith(":" + ProcessHandle.current().pid() + ":billing");
            }
        });
        runner.withPropertyValues("echomq.redis.url=" + REDIS.url(), "echomq.lock.holder-label=ops-7:job").run(ctx -> {
            try (Lease lease = ctx.getBean(LockClient.class).tryAcquire("labelled", Duration.ofSeconds(5)).orElseThrow()) {
                assertThat(ctx.getBean(LockClient.class).inspect("labelled").holderLabel()).contains("ops-7:job");
            }
        });
        runner.withPropertyValues("echomq.redis.url=" + REDIS.url(), "echomq.lock.holder-label=").run(ctx -> {
            try (Lease lease = ctx.getBean(LockClient.class).tryAcquire("labelled", Duration.ofSeconds(5)).orElseThrow()) {
                assertThat(lease.token()).matches("[0-9a-f]{32}");
            }
        });
    }

    @Test
    void aBadValueFailsStartupWithOneLineNamingTheProperty() {
        Map<String, String> bad = Map.of(
                "echomq.redis.url=http://nowhere:6379", "echomq.redis.url",
                "echomq.redis.command-timeout=-5s", "echomq.redis.command-timeout",
                "echomq.lock.poll-interval=0ms", "echomq.lock.poll-interval",
                "echomq.lock.namespace=a{b", "echomq.lock.namespace",
                "echomq.lock.holder-label=has space", "echomq.lock.holder-label",
                "echomq.queue.max-payload-bytes=0", "echomq.queue.max-payload-bytes",
                "echomq.queue.retain-completed=-1h", "echomq.queue.retain-completed",
                "echomq.schedules.missed-after=500ms", "echomq.schedules.missed-after",
                "echomq.queue.wait-for-replicas=101", "echomq.queue.wait-for-replicas",
                "echomq.queue.replica-timeout=0ms", "echomq.queue.replica-timeout");
        FailureAnalyzer analyzer = new EchoMQFailureAnalyzer();
        bad.forEach((setting, property) -> runner.withPropertyValues("echomq.redis.url=" + REDIS.url(), setting).run(ctx -> {
            assertThat(ctx).hasFailed();
            FailureAnalysis analysis = analyzer.analyze(ctx.getStartupFailure());
            assertThat(analysis).as(setting).isNotNull();
            assertThat(analysis.getDescription()).as(setting).startsWith(property + ": ").doesNotContain("\n");
            assertThat(analysis.getAction()).contains(property);
        }));
    }

    @Test
    void aReplicaTimeoutNotShorterThanTheCommandTimeoutIsRefusedByName() {
        runner.withPropertyValues("echomq.redis.url=" + REDIS.url(), "echomq.redis.command-timeout=1s",
                "echomq.queue.wait-for-replicas=1", "echomq.queue.replica-timeout=1s").run(ctx -> {
            assertThat(ctx).hasFailed();
            assertThat(new EchoMQFailureAnalyzer().analyze(ctx.getStartupFailure()).getDescription())
                    .startsWith("echomq.queue.replica-timeout: must be shorter than echomq.redis.command-timeout");
        });
    }

    @Test
    void aPasswordInABadUrlIsNotEchoed() {
        runner.withPropertyValues("echomq.redis.url=redis://u:s3cret@host:notaport").run(ctx -> {
            assertThat(ctx).hasFailed();
            String line = new EchoMQFailureAnalyzer().analyze(ctx.getStartupFailure()).getDescription();
            assertThat(line).startsWith("echomq.redis.url: ").doesNotContain("s3cret");
        });
    }

    @Test
    void theFailureAnalyzerIsRegistered() throws Exception {
        // Loading every analyzer of the class path would instantiate other modules' ones too; read the
        // lists instead and look for ours under the FailureAnalyzer key.
        boolean found = false;
        var urls = getClass().getClassLoader().getResources(SpringFactoriesLoader.FACTORIES_RESOURCE_LOCATION);
        while (urls.hasMoreElements()) {
            var props = org.springframework.core.io.support.PropertiesLoaderUtils.loadProperties(
                    new org.springframework.core.io.UrlResource(urls.nextElement()));
            found |= String.valueOf(props.getProperty(FailureAnalyzer.class.getName()))
                    .contains(EchoMQFailureAnalyzer.class.getName());
        }
        assertThat(found).isTrue();
    }

    @Test
    void everyPropertyHasMetadataWithADescription() throws Exception {
        // Ours among every jar's metadata file (Spring Boot's own jars have one too).
        tools.jackson.databind.JsonNode metadata = null;
        var urls = getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json");
        while (urls.hasMoreElements()) {
            try (var in = urls.nextElement().openStream()) {
                tools.jackson.databind.JsonNode tree = tools.jackson.databind.json.JsonMapper.builder().build().readTree(in);
                if (tree.path("groups").toString().contains(EchoMQProperties.class.getName())) {
                    metadata = tree;
                }
            }
        }
        assertThat(metadata).as("the starter's configuration metadata").isNotNull();
        Map<String, String> described = new java.util.TreeMap<>();
        metadata.path("properties").forEach(p -> described.put(p.path("name").asString(), p.path("description").asString()));
        assertThat(described.keySet()).containsExactlyInAnyOrder("echomq.redis.url", "echomq.redis.command-timeout",
                "echomq.redis.trusted-certificates", "echomq.lock.namespace", "echomq.lock.poll-interval", "echomq.lock.mark-fences-for-protocol1",
                "echomq.lock.holder-label", "echomq.queue.max-payload-bytes", "echomq.queue.retain-completed",
                "echomq.queue.wait-for-replicas", "echomq.queue.replica-timeout", "echomq.worker.enabled",
                "echomq.worker.shutdown-grace", "echomq.worker.maintenance-interval", "echomq.worker.idle-poll",
                "echomq.worker.interrupt-handlers", "echomq.worker.name",
                "echomq.health.queues", "echomq.health.max-overdue", "echomq.health.max-dead",
                "echomq.dashboard.enabled", "echomq.dashboard.path", "echomq.dashboard.token",
                "echomq.dashboard.read-only", "echomq.metrics.enabled", "echomq.metrics.queues",
                "echomq.tracing.enabled", "echomq.tracing.lock-spans",
                "echomq.schedules.missed-after", "echomq.schedules.remove-unknown",
                "echomq.template.transactional");
        described.forEach((name, description) -> assertThat(description).as(name).hasSizeGreaterThan(20));
    }

    @Test
    void withoutJacksonPayloadsAreBytesAndText() {
        runner.withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader("tools.jackson"))
                .withPropertyValues("echomq.redis.url=" + REDIS.url()).run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx.getBean(io.echomq.spring.queue.PayloadCodec.class))
                            .isExactlyInstanceOf(io.echomq.spring.queue.PlainPayloadCodec.class);
                    assertThat(ctx.getBean(io.echomq.spring.queue.EchoMQTemplate.class).enqueue("no-jackson", "text")).isNotEmpty();
                });
    }

    @Test
    void withoutSpringTxTheTemplateSendsAtOnce() {
        runner.withClassLoader(new org.springframework.boot.test.context.FilteredClassLoader("org.springframework.transaction"))
                .withPropertyValues("echomq.redis.url=" + REDIS.url()).run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    assertThat(ctx.getBean(io.echomq.spring.queue.EnqueueDispatcher.class))
                            .isNotInstanceOf(io.echomq.spring.queue.AfterCommitEnqueueDispatcher.class);
                    assertThat(ctx.getBean(io.echomq.spring.queue.EchoMQTemplate.class).enqueue("no-tx", "text")).isNotEmpty();
                });
    }

    @Test
    void withSpringTxTheTemplateFollowsTheTransactionUnlessToldImmediate() {
        runner.withPropertyValues("echomq.redis.url=" + REDIS.url()).run(ctx -> assertThat(
                ctx.getBean(io.echomq.spring.queue.EnqueueDispatcher.class))
                .isInstanceOf(io.echomq.spring.queue.AfterCommitEnqueueDispatcher.class));
        runner.withPropertyValues("echomq.redis.url=" + REDIS.url(), "echomq.template.transactional=immediate")
                .run(ctx -> assertThat(ctx.getBean(io.echomq.spring.queue.EnqueueDispatcher.class))
                        .isNotInstanceOf(io.echomq.spring.queue.AfterCommitEnqueueDispatcher.class));
    }

    @Test
    void withJacksonPayloadsAreJsonThroughTheApplicationsMapper() {
        runner.withConfiguration(AutoConfigurations.of(org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration.class))
                .withPropertyValues("echomq.redis.url=" + REDIS.url()).run(ctx -> {
                    assertThat(ctx).hasNotFailed().hasSingleBean(tools.jackson.databind.json.JsonMapper.class);
                    assertThat(ctx.getBean(io.echomq.spring.queue.PayloadCodec.class))
                            .isExactlyInstanceOf(io.echomq.spring.queue.JacksonPayloadCodec.class);
                });
    }

    @Test
    void theUpgradeModePropertyMarksEveryFencedGrant() {
        runner.withPropertyValues("echomq.redis.url=" + REDIS.url(), "echomq.lock.mark-fences-for-protocol1=true")
                .run(ctx -> {
                    assertThat(ctx).hasNotFailed();
                    LockClient locks = ctx.getBean(LockClient.class);
                    var lease = locks.tryAcquire("spring-upgrade", Duration.ofSeconds(5)).orElseThrow();
                    lease.release();
                    assertThat(REDIS.raw().call("GET", "emq:lock:{spring-upgrade}:fence")).isEqualTo("v2:" + lease.fence());
                });
    }

    @Test
    void literalDefaultsAreTheCoresDefaults() {
        EchoMQProperties p = new EchoMQProperties();
        assertThat(p.getRedis().getCommandTimeout()).isEqualTo(LockClient.DEFAULT_COMMAND_TIMEOUT)
                .isEqualTo(QueueClient.DEFAULT_COMMAND_TIMEOUT);
        assertThat(p.getLock().getPollInterval()).isEqualTo(LockClient.DEFAULT_POLL_INTERVAL);
        assertThat(p.getQueue().getMaxPayloadBytes()).isEqualTo(QueueClient.DEFAULT_MAX_PAYLOAD_BYTES);
        assertThat(p.getQueue().getRetainCompleted()).isEqualTo(QueueClient.DEFAULT_RETAIN_COMPLETED);
        assertThat(p.getWorker().getMaintenanceInterval()).isEqualTo(io.echomq.queue.Worker.DEFAULT_MAINTENANCE_INTERVAL);
        assertThat(p.getWorker().getIdlePoll()).isEqualTo(io.echomq.queue.Worker.DEFAULT_IDLE_POLL);
        assertThat(Optional.ofNullable(p.getRedis().getUrl())).isEmpty();
    }
}
