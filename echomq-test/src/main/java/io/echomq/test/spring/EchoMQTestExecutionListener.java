package io.echomq.test.spring;

import io.echomq.spring.queue.ScheduleLifecycle;
import io.echomq.test.TestRedis;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.TestExecutionListener;

/**
 * Deletes every key of the test server ({@code FLUSHALL}) before each test method of a class that carries
 * {@link AutoConfigureEchoMQTest}, so that what a test finds enqueued is what it enqueued, however many test classes
 * share the cached context. The application's {@code @EchoSchedule}s, which the starter stored at the context's
 * start, are then stored again, so each test finds the server as the application's start left it, less the jobs
 * and locks of earlier tests. Spring's test framework finds this listener in {@code META-INF/spring.factories};
 * for a class without the annotation it does nothing.
 */
public final class EchoMQTestExecutionListener implements TestExecutionListener, Ordered {
    /** Created by Spring's test framework. */
    public EchoMQTestExecutionListener() {
    }

    /**
     * @param testContext the test's context
     * @throws IllegalStateException if the embedded server cannot start
     * @throws io.lettuce.core.RedisException if the server cannot be reached
     * @throws io.echomq.RedisCommandException if the schedules cannot be stored again
     */
    @Override
    public void beforeTestMethod(TestContext testContext) {
        if (TestContextAnnotationUtils.hasAnnotation(testContext.getTestClass(), AutoConfigureEchoMQTest.class)) {
            TestRedis.shared().flushAll();
            // the starter's ScheduleLifecycle upserts every declared schedule again (none to remove: all are gone)
            testContext.getApplicationContext().getBeanProvider(ScheduleLifecycle.class)
                    .ifAvailable(ScheduleLifecycle::start);
        }
    }

    /** @return after Spring's own listeners (dependency injection and the rest) */
    @Override
    public int getOrder() {
        return 5000;
    }
}
