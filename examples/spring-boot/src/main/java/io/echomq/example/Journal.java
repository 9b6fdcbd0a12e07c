package io.echomq.example;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * The application's own records in Redis, shared by every instance:
 *
 * <ul>
 *   <li>{@value #RUNS}: a list, one entry per start and end of a report run,
 *       {@code start <instance> <fence>} and {@code end <instance> <fence>}, in the order Redis
 *       received them, which is one order for all instances;</li>
 *   <li>{@value #SENT}: a hash from each email job's id to the number of times it was handled,
 *       which stays 1 when each job is handled exactly once;</li>
 *   <li>{@value #SENT_BY}: a hash from instance to the emails it sent.</li>
 * </ul>
 *
 * It connects to {@code echomq.redis.url} (a single server: {@code redis://} or {@code rediss://})
 * when the application starts and closes with it. A Redis error is thrown to the caller as Lettuce's
 * {@code RedisException}.
 */
@Component
public class Journal implements DisposableBean {
    /** The list of report starts and ends. */
    public static final String RUNS = "example:report:runs";
    /** The hash of handled counts per email job id. */
    public static final String SENT = "example:emails:sent";
    /** The hash of sent counts per instance. */
    public static final String SENT_BY = "example:emails:sent-by";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    /**
     * @param url the Redis URL, the same server as EchoMQ's
     */
    public Journal(@Value("${echomq.redis.url}") String url) {
        this.client = RedisClient.create(url);
        this.connection = client.connect();
        this.redis = connection.sync();
    }

    /** Records that a report run began on {@code instance} under the lease with {@code fence}. */
    public void runStarted(String instance, long fence) {
        redis.rpush(RUNS, "start " + instance + " " + fence);
    }

    /** Records that the report run of {@code instance} under {@code fence} ended. */
    public void runEnded(String instance, long fence) {
        redis.rpush(RUNS, "end " + instance + " " + fence);
    }

    /** @return every recorded start and end, oldest first */
    public List<String> runs() {
        return redis.lrange(RUNS, 0, -1);
    }

    /**
     * Counts one handling of the email job {@code jobId} by {@code instance}.
     *
     * @return how many times this job has now been handled: 1 the first time
     */
    public long emailSent(String jobId, String instance) {
        redis.hincrby(SENT_BY, instance, 1);
        return redis.hincrby(SENT, jobId, 1);
    }

    /** @return each handled job id with its count */
    public Map<String, String> sent() {
        return redis.hgetall(SENT);
    }

    @Override
    public void destroy() {
        connection.close();
        client.shutdown();
    }
}
