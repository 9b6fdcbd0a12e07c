package io.echomq.spring.actuate;

import io.echomq.lock.Locks;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueStats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * EchoMQ's health, as {@code /actuator/health/echomq}:
 * <ul>
 *   <li>UP when Redis answers a read, DOWN with the error when it does not;</li>
 *   <li>for each watched queue (those with an {@code @EchoJobHandler}, plus
 *       {@code echomq.health.queues}), its counts as details: pending, active, delayed, dead and
 *       overdue (active jobs whose lease ran out, which the next reap returns to pending);</li>
 *   <li>DOWN, with a line per problem under {@code problems}, when a queue has more overdue
 *       leases than {@code echomq.health.max-overdue} or more dead jobs than
 *       {@code echomq.health.max-dead} (-1, the default, checks nothing).</li>
 * </ul>
 * Each check reads one script per queue; no key is written.
 */
public class EchoMQHealthIndicator extends AbstractHealthIndicator {
    /** The lock resource read to see that Redis answers when no queue is watched. */
    static final String PROBE = "echomq-health-probe";

    private final Locks locks;
    private final QueueClient queues;
    private final Supplier<List<String>> watched;
    private final long maxOverdue;
    private final long maxDead;

    /**
     * @param locks the lock client (read once per check when no queue is watched)
     * @param queues the queue client
     * @param watched the queues to report, read at each check
     * @param maxOverdue most overdue leases per queue before DOWN, or -1
     * @param maxDead most dead jobs per queue before DOWN, or -1
     */
    public EchoMQHealthIndicator(Locks locks, QueueClient queues, Supplier<List<String>> watched, long maxOverdue,
                                 long maxDead) {
        super("EchoMQ health check failed");
        this.locks = locks;
        this.queues = queues;
        this.watched = watched;
        this.maxOverdue = maxOverdue;
        this.maxDead = maxDead;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        List<String> names = watched.get();
        if (names.isEmpty()) {
            locks.inspect(PROBE);
        }
        Map<String, Object> details = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (String name : names) {
            QueueStats s = queues.open(name).stats();
            Map<String, Long> counts = new LinkedHashMap<>();
            counts.put("pending", s.pending());
            counts.put("active", s.active());
            counts.put("delayed", s.delayed());
            counts.put("dead", s.dead());
            counts.put("overdue", s.overdue());
            details.put(name, counts);
            if (maxOverdue >= 0 && s.overdue() > maxOverdue) {
                problems.add(name + ": " + s.overdue() + " overdue leases, more than " + maxOverdue);
            }
            if (maxDead >= 0 && s.dead() > maxDead) {
                problems.add(name + ": " + s.dead() + " dead jobs, more than " + maxDead);
            }
        }
        if (problems.isEmpty()) {
            builder.up();
        } else {
            builder.down().withDetail("problems", problems);
        }
        builder.withDetail("queues", details);
    }
}
