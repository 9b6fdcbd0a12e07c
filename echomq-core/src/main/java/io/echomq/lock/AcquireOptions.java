package io.echomq.lock;

/**
 * How to acquire: fenced or plain, with or without a watchdog. Immutable; each {@code with…}
 * method returns a new value.
 *
 * <ul>
 *   <li><b>fenced</b> (the default) runs one script: {@code SET <lock> <token> NX PX <ttl>} and,
 *       only when it succeeds, {@code INCR} of the fence counter. The lease has a
 *       {@linkplain Lease#fence() fence}.</li>
 *   <li><b>plain</b> sends exactly one {@code SET <lock> <token> NX PX <ttl>}. The lease has no
 *       fence.</li>
 *   <li><b>watchdog</b> renews the lease at about ttl/3 until it is released or lost. Off by
 *       default: a lease should expire when its holder stops.</li>
 * </ul>
 */
public final class AcquireOptions {
    private static final AcquireOptions DEFAULTS = new AcquireOptions(true, false);

    private final boolean fenced;
    private final boolean watchdog;

    private AcquireOptions(boolean fenced, boolean watchdog) {
        this.fenced = fenced;
        this.watchdog = watchdog;
    }

    /** @return fenced, no watchdog */
    public static AcquireOptions defaults() {
        return DEFAULTS;
    }

    /** @return a copy that acquires with the plain {@code SET NX PX}, without a fence */
    public AcquireOptions plain() {
        return new AcquireOptions(false, watchdog);
    }

    /** @return a copy that acquires with the fenced script (the default) */
    public AcquireOptions fenced() {
        return new AcquireOptions(true, watchdog);
    }

    /** @return a copy whose leases are renewed by the client's watchdog at about ttl/3 */
    public AcquireOptions withWatchdog() {
        return new AcquireOptions(fenced, true);
    }

    /** @return whether the fenced script is used */
    public boolean isFenced() {
        return fenced;
    }

    /** @return whether leases are renewed by the watchdog */
    public boolean hasWatchdog() {
        return watchdog;
    }

    @Override
    public String toString() {
        return "AcquireOptions[" + (fenced ? "fenced" : "plain") + (watchdog ? ", watchdog" : "") + "]";
    }
}
