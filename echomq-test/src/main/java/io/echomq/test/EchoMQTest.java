package io.echomq.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class with {@link EchoMQExtension}: every test starts on an empty {@link TestRedis} server, and its
 * methods, constructor and lifecycle methods may take a {@code QueueClient}, a {@code LockClient} or the
 * {@link TestRedis} as parameters.
 *
 * <pre>{@code
 * @EchoMQTest
 * class SignupTest {
 *     @Test
 *     void sendsAWelcome(QueueClient queues) { ... }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(EchoMQExtension.class)
public @interface EchoMQTest {
}
