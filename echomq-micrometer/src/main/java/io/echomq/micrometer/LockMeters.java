package io.echomq.micrometer;

import io.echomq.lock.LockInstrumentation.AcquireOutcome;
import io.echomq.lock.LockInstrumentation.LockMode;
import io.echomq.lock.LockInstrumentation.RenewalResult;
import io.echomq.lock.LossReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The lock meters other than held time ({@link HeldLeases}): {@code echomq.lock.acquire} (timer,
 * tags {@code mode}, {@code outcome}), {@code echomq.lock.lost} (counter, {@code mode},
 * {@code reason}) and {@code echomq.lock.renewals} (counter, {@code mode}, {@code result}).
 *
 * <p>Every combination of tags is a fixed enum pair, so each meter is registered once, here, and a
 * call is an array lookup: no registry lookup, no tag list built per call. No tag ever names a
 * resource or a token.
 */
final class LockMeters {
    private final Timer[][] acquire;
    private final Counter[][] lost;
    private final Counter[][] renewals;

    LockMeters(MeterRegistry registry) {
        LockMode[] modes = LockMode.values();
        acquire = new Timer[modes.length][AcquireOutcome.values().length];
        lost = new Counter[modes.length][LossReason.values().length];
        renewals = new Counter[modes.length][RenewalResult.values().length];
        for (LockMode mode : modes) {
            String m = tag(mode);
            for (AcquireOutcome o : AcquireOutcome.values()) {
                acquire[mode.ordinal()][o.ordinal()] = Timer.builder("echomq.lock.acquire")
                        .description("Time of one tryAcquire or acquire call, waiting included")
                        .tags("mode", m, "outcome", tag(o)).register(registry);
            }
            for (LossReason r : LossReason.values()) {
                lost[mode.ordinal()][r.ordinal()] = Counter.builder("echomq.lock.lost")
                        .description("Leases lost: found gone or taken, or past their local deadline")
                        .tags("mode", m, "reason", tag(r)).register(registry);
            }
            for (RenewalResult r : RenewalResult.values()) {
                renewals[mode.ordinal()][r.ordinal()] = Counter.builder("echomq.lock.renewals")
                        .description("Renewals answered, by hand or by the watchdog")
                        .tags("mode", m, "result", tag(r)).register(registry);
            }
        }
    }

    void acquire(LockMode mode, AcquireOutcome outcome, long nanos) {
        acquire[mode.ordinal()][outcome.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
    }

    void lost(LockMode mode, LossReason reason) {
        lost[mode.ordinal()][reason.ordinal()].increment();
    }

    void renewal(LockMode mode, RenewalResult result) {
        renewals[mode.ordinal()][result.ordinal()].increment();
    }

    static String tag(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
