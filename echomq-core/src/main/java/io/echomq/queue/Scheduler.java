package io.echomq.queue;

import io.echomq.internal.Checks;
import io.echomq.internal.RedisEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires the recurring schedules of some queues, for deployments that run no worker of them (a
 * worker fires its own queue's schedules in its maintenance). One thread loops over the queues:
 * it fires what is due ({@link Schedules#fireDue()}, safe beside any number of other schedulers
 * and workers), then sleeps until the earliest next fire time any of them reported, at most the
 * poll, so a schedule another client adds is seen within one poll.
 *
 * <p>Started by {@link QueueClient#scheduler(Duration, String...)}; {@link #close()} stops it and
 * waits for its thread. The thread is not a daemon: a running scheduler keeps the JVM alive. A
 * failed run (Redis down) is logged once until a run succeeds, and retried after the poll.
 */
public final class Scheduler implements AutoCloseable {
    /** Default longest sleep between two looks at the schedules. */
    public static final Duration DEFAULT_POLL = Duration.ofSeconds(1);

    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    private final List<Schedules> queues;
    private final long pollMs;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long created;
    private boolean failing;

    private Scheduler(List<Schedules> queues, long pollMs) {
        this.queues = queues;
        this.pollMs = pollMs;
        this.thread = new Thread(this::loop, "emq-scheduler");
    }

    /** Checks, opens every queue's schedules (one round trip each) and starts the thread. */
    static Scheduler start(Function<String, Schedules> schedulesOf, Duration poll, String... queueNames) {
        long ms = Checks.ttlMillis(poll, Duration.ofMinutes(10), "poll");
        Checks.notNull(queueNames, "queueNames");
        if (queueNames.length == 0) {
            throw new IllegalArgumentException("a scheduler needs at least one queue");
        }
        for (String n : queueNames) {
            io.echomq.internal.QueueKeys.ofUserName(n);
        }
        List<Schedules> all = new ArrayList<>();
        for (String n : queueNames) {
            all.add(schedulesOf.apply(n));
        }
        Scheduler s = new Scheduler(List.copyOf(all), ms);
        s.thread.start();
        LOG.info("scheduler started for {}", all.stream().map(Schedules::queueName).toList());
        return s;
    }

    private void loop() {
        while (running) {
            long waitMs = pollMs;
            for (Schedules q : queues) {
                if (!running) {
                    return;
                }
                try {
                    ScheduleFirer.Run run = RedisEngine.awaitInterruptibly(q.firer().runAsync(), "schedules",
                            q.queueName());
                    created += run.created();
                    waitMs = Math.min(waitMs, run.waitMs(pollMs));
                    if (failing) {
                        failing = false;
                        LOG.info("scheduler: {} fires again", q.queueName());
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    if (!failing) {
                        failing = true;
                        LOG.warn("scheduler: firing the schedules of {} failed: {} (logged once until it runs again)",
                                q.queueName(), e.getMessage());
                    }
                }
            }
            try {
                if (waitMs > 0) {
                    TimeUnit.MILLISECONDS.sleep(waitMs);
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** @return the queues whose schedules this scheduler fires */
    public List<String> queueNames() {
        return queues.stream().map(Schedules::queueName).toList();
    }

    /** @return how many jobs this scheduler has created so far */
    public long created() {
        return created;
    }

    /** @return true until {@link #close()} */
    public boolean isRunning() {
        return running && thread.isAlive();
    }

    /**
     * Stops the scheduler and waits up to 10 s for its thread. A run in flight is interrupted:
     * whatever it enqueued without advancing stays due, and the next scheduler's run adds nothing
     * twice. Idempotent.
     */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
