package io.echomq.example;

import io.echomq.lock.Lease;
import io.echomq.spring.lock.Locked;
import io.echomq.spring.lock.LockedContext;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The "nightly report": scheduled on every instance (every {@code example.report.interval}, 1 s by
 * default, so that the demo shows it), run by one at a time. {@code @Locked} with its default
 * {@code SKIP} makes an instance that finds the lock held skip that run; the lease is renewed while
 * the report runs.
 *
 * <p>Each run writes its start and end to the {@link Journal} with the lease's fence, which rises
 * with every grant of the lock: a store that remembers the largest fence it saw can refuse a late
 * write from a holder that lost its lease.
 */
@Component
public class NightlyReport {
    private static final Logger log = LoggerFactory.getLogger(NightlyReport.class);

    private final Journal journal;
    private final Instance instance;
    private final Duration work;

    /**
     * @param journal  where runs are recorded
     * @param instance this process's name
     * @param work     how long building the report takes ({@code example.report.work}, 200 ms by default)
     */
    public NightlyReport(Journal journal, Instance instance, @Value("${example.report.work:200ms}") Duration work) {
        this.journal = journal;
        this.instance = instance;
        this.work = work;
    }

    /**
     * Builds the report, under the lock {@code nightly-report}.
     *
     * @throws InterruptedException if the lease is lost while it runs (the starter interrupts the
     *     method), and the caller then sees {@code LockLostException}
     */
    @Scheduled(fixedDelayString = "${example.report.interval:1s}")
    @Locked(value = "'nightly-report'", ttl = "${example.report.ttl:10s}")
    public void run() throws InterruptedException {
        Lease lease = LockedContext.current().orElseThrow();   // @Scheduled methods take no arguments
        journal.runStarted(instance.id(), lease.fence());
        log.info("report started on {} with fence {}", instance.id(), lease.fence());
        Thread.sleep(work.toMillis());                          // stands for the report's real work
        LockedContext.checkHeld();                              // still ours: publish it
        journal.runEnded(instance.id(), lease.fence());
        log.info("report ended on {} with fence {}", instance.id(), lease.fence());
    }
}
