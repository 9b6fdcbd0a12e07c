package io.echomq.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Two-phase handling of SIGINT and SIGTERM for {@code emq worker}: the first signal asks for a graceful stop, any
 * later one for an immediate stop.
 *
 * <ol>
 *   <li>Why {@code sun.misc.Signal} (module {@code jdk.unsupported}, present in every JDK 17+) and not a shutdown
 *       hook: once the first signal has started the JVM's shutdown, the JVM ignores further SIGINT/SIGTERM (its
 *       exit blocks behind the running hooks), so a hook can never see the second Ctrl-C. A handler here keeps
 *       the JVM out of shutdown until the command returns, and sees every signal.</li>
 *   <li>Where the handlers cannot be installed (a JVM run with {@code -Xrs}, which reserves the signals),
 *       {@link #install} installs nothing and the caller's shutdown hook does the graceful stop alone.</li>
 *   <li>{@link #close()} puts the previous handlers back, so an in-process run (tests) leaves the JVM as it was.</li>
 * </ol>
 *
 * Handlers run on the JVM's signal thread: keep them quick and non-blocking.
 */
final class StopSignals implements AutoCloseable {
    private static final List<String> NAMES = List.of("INT", "TERM");

    private final AtomicInteger count = new AtomicInteger();
    private final List<Signal> signals = new ArrayList<>();
    private final List<SignalHandler> previous = new ArrayList<>();
    private volatile int first;

    private StopSignals() {
    }

    /**
     * Installs the handlers.
     *
     * @param onFirst called once, with the signal number (2 for SIGINT, 15 for SIGTERM), on the first signal
     * @param onAgain called on each later signal
     * @return the installed handlers; close to restore the previous ones
     */
    static StopSignals install(IntConsumer onFirst, Runnable onAgain) {
        StopSignals s = new StopSignals();
        for (String name : NAMES) {
            Signal signal = new Signal(name);
            try {
                SignalHandler old = Signal.handle(signal, sig -> {
                    if (s.count.getAndIncrement() == 0) {
                        s.first = sig.getNumber();
                        onFirst.accept(sig.getNumber());
                    } else {
                        onAgain.run();
                    }
                });
                s.signals.add(signal);
                s.previous.add(old);
            } catch (IllegalArgumentException reservedOrUnknown) {
                // -Xrs, or a platform without this signal: the shutdown hook remains
            }
        }
        return s;
    }

    /** @return the number of the first signal received, or 0 if none came */
    int firstSignal() {
        return first;
    }

    @Override
    public void close() {
        for (int i = 0; i < signals.size(); i++) {
            Signal.handle(signals.get(i), previous.get(i));
        }
    }
}
