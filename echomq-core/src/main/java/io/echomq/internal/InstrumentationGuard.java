package io.echomq.internal;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the guards around a user's instrumentation (the lock's and the queue's) do with a failure of
 * the user's code, so that instrumentation cannot break a lock or a job.
 *
 * <ol>
 *   <li>{@link #failed} rethrows a {@link VirtualMachineError} (out of memory, stack overflow),
 *       which no caller could handle either, and swallows anything else.</li>
 *   <li>It logs the first failure of each method at WARN, with its stack trace, and later ones of
 *       that method at DEBUG: a broken exporter must not flood the log once per lock.</li>
 * </ol>
 * Every guard logs under one logger, {@value #LOGGER}, the name users set its level by.
 */
public final class InstrumentationGuard {
    /** The logger's name for every instrumentation failure and refused job field. */
    public static final String LOGGER = "io.echomq.Instrumentation";
    /** The logger named {@link #LOGGER}. */
    public static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    private final String delegate;
    private final String[] methods;
    private final AtomicInteger warned = new AtomicInteger();   // one bit per method

    /**
     * @param delegate the user's instrumentation, named in each log line
     * @param methods the names of the guarded methods, at most 32, indexed as {@link #failed} is called
     * @throws IllegalArgumentException if there are more than 32 methods
     */
    public InstrumentationGuard(Object delegate, String... methods) {
        if (methods.length > Integer.SIZE) {
            throw new IllegalArgumentException("at most " + Integer.SIZE + " methods, was " + methods.length);
        }
        this.delegate = delegate.getClass().getName();
        this.methods = methods.clone();
    }

    /**
     * Whether {@code instrumentation} overrides any method of {@code hook}, whose methods all have
     * empty defaults: one that overrides none (the joined {@code Instrumentation.NONE}, or one that
     * watches only the other side) records nothing here, so a client treats it as {@code NONE} and
     * pays nothing for it. Asked once, when a client is built.
     *
     * @param instrumentation what a builder was given
     * @param hook the interface of the client's side
     * @return false when every method of {@code hook} is still its default
     */
    public static boolean overridesAny(Object instrumentation, Class<?> hook) {
        for (Method m : hook.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) || !m.isDefault()) {
                continue;
            }
            try {
                if (instrumentation.getClass().getMethod(m.getName(), m.getParameterTypes()).getDeclaringClass()
                        != hook) {
                    return true;
                }
            } catch (NoSuchMethodException e) {
                return true;   // cannot be: the class implements hook; assume it records
            }
        }
        return false;
    }

    /**
     * Logs that method number {@code method} of the user's instrumentation threw {@code t}.
     *
     * @throws VirtualMachineError {@code t} itself, when it is one
     */
    public void failed(int method, Throwable t) {
        if (t instanceof VirtualMachineError e) {
            throw e;
        }
        int bit = 1 << method;
        int before = warned.getAndUpdate(w -> w | bit);
        if ((before & bit) == 0) {
            LOG.warn("instrumentation {} threw in {}; ignored (further failures of {} are logged at DEBUG)",
                    delegate, methods[method], methods[method], t);
        } else {
            LOG.debug("instrumentation {} threw in {}; ignored", delegate, methods[method], t);
        }
    }

    /**
     * @return whether {@code method}'s first failure was logged at WARN; for tests
     * @throws IllegalArgumentException if no guarded method has that name
     */
    public boolean warnedOf(String method) {
        for (int i = 0; i < methods.length; i++) {
            if (methods[i].equals(method)) {
                return (warned.get() & (1 << i)) != 0;
            }
        }
        throw new IllegalArgumentException("no method " + method);
    }
}
