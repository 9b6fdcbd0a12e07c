package io.echomq.test.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.test.TestRedis;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.test.context.ContextCustomizer;

/**
 * The customizer {@link AutoConfigureEchoMQTest} makes: the test server's URL and the workers switch as the
 * annotation says, the {@link ApplicationQueues} bean, and one cached context per annotation value. (The starter's
 * own tests show that {@code echomq.worker.enabled} starts or keeps off the workers.)
 */
class EchoMQContextCustomizerFactoryTest {
    @AutoConfigureEchoMQTest
    static class WorkersOff {
    }

    @AutoConfigureEchoMQTest
    static class AlsoWorkersOff {
    }

    @AutoConfigureEchoMQTest(workers = true)
    static class WorkersOn {
    }

    static class NotAnnotated {
    }

    @AutoConfigureEchoMQTest
    static class Outer {
        @org.junit.jupiter.api.Nested
        class Inner {
        }
    }

    private static ContextCustomizer customizer(Class<?> testClass) {
        return new EchoMQContextCustomizerFactory().createContextCustomizer(testClass, List.of());
    }

    @Test
    void setsTheServersUrlAndTheWorkersSwitchAboveEveryOtherSource() {
        for (Class<?> testClass : List.of(WorkersOff.class, WorkersOn.class)) {
            try (GenericApplicationContext context = new GenericApplicationContext()) {
                customizer(testClass).customizeContext(context, null);
                assertThat(context.getEnvironment().getPropertySources().iterator().next().getName())
                        .isEqualTo(EchoMQContextCustomizer.SOURCE);
                assertThat(context.getEnvironment().getProperty("echomq.redis.url")).isEqualTo(TestRedis.shared().url());
                assertThat(context.getEnvironment().getProperty("echomq.worker.enabled"))
                        .isEqualTo(testClass == WorkersOn.class ? "true" : "false");
                assertThat(context.getBeanFactory().containsSingleton(ApplicationQueues.BEAN_NAME)).isTrue();
            }
        }
    }

    @Test
    void equalValuesShareOneCachedContextAndOnlyAnnotatedClassesGetOne() {
        assertThat(customizer(WorkersOff.class)).isEqualTo(customizer(AlsoWorkersOff.class))
                .hasSameHashCodeAs(customizer(AlsoWorkersOff.class)).isNotEqualTo(customizer(WorkersOn.class));
        assertThat(customizer(NotAnnotated.class)).isNull();
        assertThat(customizer(Outer.Inner.class)).isEqualTo(customizer(WorkersOff.class));
    }
}
