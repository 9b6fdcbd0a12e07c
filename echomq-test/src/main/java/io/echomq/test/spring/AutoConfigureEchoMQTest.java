package io.echomq.test.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.test.context.ContextCustomizerFactories;

/**
 * Points the EchoMQ Spring Boot starter of a {@code @SpringBootTest} at the JVM's test server
 * ({@link io.echomq.test.TestRedis#shared()}: the embedded {@code redis-server} unless a URL names another), and adds
 * an {@link ApplicationQueues} bean that drains a queue with the application's own {@code @EchoJobHandler} method.
 *
 * <ul>
 *   <li>{@code echomq.redis.url} is the test server's URL, above every other property source of the test.</li>
 *   <li>{@code echomq.worker.enabled} is {@link #workers()}: false by default, so that no worker takes the jobs a
 *       test enqueues before the test drains them, or asserts they are there.</li>
 *   <li>Each test method starts on an empty server: the server's keys are deleted before it
 *       ({@link EchoMQTestExecutionListener}).</li>
 * </ul>
 * Test classes with the same annotation values share one cached context, as Spring's test contexts do.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ContextCustomizerFactories(EchoMQContextCustomizerFactory.class)
public @interface AutoConfigureEchoMQTest {
    /** @return whether the application's workers run ({@code echomq.worker.enabled}); false by default */
    boolean workers() default false;
}
