package io.echomq.test.spring;

import io.echomq.queue.JobHandler;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import io.echomq.spring.queue.JobHandlerRegistry;
import io.echomq.test.DrainedJob;
import io.echomq.test.QueueAssert;
import io.echomq.test.QueueDrain;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;

/**
 * The application's queues, for its tests: a bean that {@link AutoConfigureEchoMQTest} adds to the test's context.
 * It drains a queue with the application's own {@code @EchoJobHandler} method, as the starter's worker would call it
 * (the payload decoded by the application's codec), and reads what is enqueued, all through the context's
 * {@link QueueClient}.
 *
 * <pre>{@code
 * @Autowired ApplicationQueues queues;
 * ...
 * queues.drain("emails");
 * }</pre>
 */
public final class ApplicationQueues {
    /** The bean's name in the test's context. */
    public static final String BEAN_NAME = "echomqApplicationQueues";

    private final BeanFactory beans;

    ApplicationQueues(BeanFactory beans) {
        this.beans = beans;
    }

    /**
     * Returns a queue of the application's client.
     *
     * @param name the queue's name
     * @return the queue, plain or sharded as stored
     * @throws IllegalArgumentException if the name is invalid
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public QueueOperations queue(String name) {
        return beans.getBean(QueueClient.class).open(name);
    }

    /**
     * Runs the queue's pending (and due delayed) jobs inline with the application's {@code @EchoJobHandler} method of
     * that queue, until none is left, as {@link QueueDrain#drain} does.
     *
     * @param queue the queue's name
     * @return the jobs that ran, in order
     * @throws AssertionError if the application has no handler for the queue, or more than one, or if the handler
     *     threw (its exception is the cause; the job was failed)
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<DrainedJob> drain(String queue) {
        List<JobHandler> handlers = beans.getBean(JobHandlerRegistry.class).handlers(queue);
        if (handlers.size() != 1) {
            throw new AssertionError("drain needs exactly one @EchoJobHandler for queue '" + queue + "', the application has "
                    + handlers.size());
        }
        return QueueDrain.drain(queue(queue), handlers.get(0));
    }

    /**
     * Starts the assertions on what the queue holds to run ({@link QueueAssert}).
     *
     * @param queue the queue's name
     * @return its assertions
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public QueueAssert assertThat(String queue) {
        return QueueAssert.assertThatQueue(queue(queue));
    }

    /**
     * Reads the payloads of the queue's enqueued jobs ({@link QueueAssert#enqueuedPayloads}).
     *
     * @param queue the queue's name
     * @return the payloads decoded as UTF-8, pending in claim order, then delayed in due order
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public List<String> enqueuedPayloads(String queue) {
        return QueueAssert.enqueuedPayloads(queue(queue));
    }
}
