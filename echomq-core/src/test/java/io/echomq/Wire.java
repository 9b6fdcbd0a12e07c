package io.echomq;

import io.echomq.server.CommandTap;
import io.echomq.server.RawRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** What reached Redis during a call: the bad-input suites use it to prove that nothing did. */
public final class Wire {
    private Wire() {
    }

    /**
     * Runs {@code call} with {@code tap} recording, then sends a marker {@code PING} on {@code raw}
     * and waits for it, so the returned list is complete.
     *
     * @return the commands the server ran between the start of the call and the marker
     * @throws AssertionError if MONITOR does not report the marker within 10 s
     */
    public static List<List<String>> during(RawRedis raw, CommandTap tap, Runnable call) {
        // MONITOR reports asynchronously: let earlier commands arrive before forgetting them
        String before = "wire-before-" + System.nanoTime();
        raw.call("PING", before);
        if (!tap.awaitCommand(c -> c.contains(before), Duration.ofSeconds(10))) {
            throw new AssertionError("MONITOR did not report the marker");
        }
        tap.clear();
        RuntimeException thrown = null;
        try {
            call.run();
        } catch (RuntimeException e) {
            thrown = e;
        }
        String marker = "wire-marker-" + System.nanoTime();
        raw.call("PING", marker);
        if (!tap.awaitCommand(c -> c.contains(marker), Duration.ofSeconds(10))) {
            throw new AssertionError("MONITOR did not report the marker");
        }
        List<List<String>> seen = new ArrayList<>();
        for (List<String> c : tap.commands()) {
            if (c.contains(marker)) {
                break;
            }
            seen.add(c);
        }
        if (thrown != null) {
            throw new Sent(seen, thrown);
        }
        return seen;
    }

    /** The call threw: carries what it threw and what it sent before throwing. */
    public static final class Sent extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient List<List<String>> commands;

        Sent(List<List<String>> commands, RuntimeException cause) {
            super(cause.toString(), cause);
            this.commands = commands;
        }

        /** @return the commands the server ran before the call threw */
        public List<List<String>> commands() {
            return commands;
        }
    }
}
