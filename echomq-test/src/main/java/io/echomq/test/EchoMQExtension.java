package io.echomq.test;

import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension for an application's tests on a real server, the JVM's {@link TestRedis}: the embedded
 * {@code redis-server} unless a URL names another.
 *
 * <ul>
 *   <li>Before each test, deletes every key of the server ({@code FLUSHALL}), so that what a test enqueues is all
 *       there is to find.</li>
 *   <li>Resolves parameters of type {@link QueueClient}, {@link LockClient} and {@link TestRedis}. The clients are
 *       connected to the server once per test class, on first use, and closed when the class ends (a
 *       {@code @Nested} class uses those of the class around it).</li>
 * </ul>
 * Use it with {@link EchoMQTest}, with {@code @ExtendWith(EchoMQExtension.class)}, or on a static
 * {@code @RegisterExtension} field to reach the clients from code that takes no parameters:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final EchoMQExtension EMQ = new EchoMQExtension();
 * ... EMQ.queueClient().queue("emails") ...
 * }</pre>
 */
public final class EchoMQExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, ParameterResolver {
    private QueueClient queueClient;   // guarded by this
    private LockClient lockClient;     // guarded by this
    private int depth;                 // guarded by this: the test classes (a @Nested one inside its own) running

    /** Creates the extension; JUnit does this for {@link EchoMQTest} and {@code @ExtendWith}. */
    public EchoMQExtension() {
    }

    /**
     * Counts the test class in; a {@code @Nested} class shares the clients of the class around it.
     *
     * @param context the class's context
     */
    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        depth++;
    }

    /**
     * Closes the clients when the outermost test class ends.
     *
     * @param context the class's context
     */
    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (depth == 0 || --depth > 0) {
            return;
        }
        if (queueClient != null) {
            queueClient.close();
            queueClient = null;
        }
        if (lockClient != null) {
            lockClient.close();
            lockClient = null;
        }
    }

    /**
     * Deletes every key of the server before the test.
     *
     * @param context the test's context
     * @throws IllegalStateException if the embedded server cannot start
     * @throws io.lettuce.core.RedisException if the server cannot be reached
     */
    @Override
    public void beforeEach(ExtensionContext context) {
        TestRedis.shared().flushAll();
    }

    /**
     * @param parameter the parameter
     * @param context the context
     * @return whether the parameter is a {@link QueueClient}, a {@link LockClient} or a {@link TestRedis}
     */
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == QueueClient.class || type == LockClient.class || type == TestRedis.class;
    }

    /**
     * @param parameter the parameter
     * @param context the context
     * @return the test class's client of the parameter's type, or the server
     * @throws ParameterResolutionException if the server cannot start or the client cannot connect
     */
    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        try {
            if (type == TestRedis.class) {
                return TestRedis.shared();
            }
            return type == QueueClient.class ? queueClient() : lockClient();
        } catch (RuntimeException e) {
            throw new ParameterResolutionException("EchoMQ could not give a " + type.getSimpleName() + ": " + e, e);
        }
    }

    /**
     * Returns the test class's queue client, connected to {@link TestRedis#shared()} on the first call.
     *
     * @return the client; the extension closes it when the class ends, so do not close it
     * @throws IllegalStateException if the embedded server cannot start
     * @throws io.echomq.RedisCommandException if the server cannot be reached
     */
    public synchronized QueueClient queueClient() {
        if (queueClient == null) {
            queueClient = QueueClient.builder().redisUrl(TestRedis.shared().url()).build();
        }
        return queueClient;
    }

    /**
     * Returns the test class's lock client, connected to {@link TestRedis#shared()} on the first call.
     *
     * @return the client; the extension closes it when the class ends, so do not close it
     * @throws IllegalStateException if the embedded server cannot start
     * @throws io.echomq.RedisCommandException if the server cannot be reached
     */
    public synchronized LockClient lockClient() {
        if (lockClient == null) {
            lockClient = LockClient.builder().redisUrl(TestRedis.shared().url()).build();
        }
        return lockClient;
    }
}
