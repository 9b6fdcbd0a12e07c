package io.echomq.spring.lock;

import io.echomq.lock.AcquireOptions;
import io.echomq.lock.Lease;
import io.echomq.lock.LockWaitTimeoutException;
import io.echomq.lock.Locks;
import io.echomq.lock.LossReason;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The advice around a {@link Locked} method. Per call:
 * <ol>
 *   <li>evaluate the resource expression over the arguments;</li>
 *   <li>acquire the lock as the policy says ({@link WhenBusy}), fenced, with the watchdog unless
 *       turned off;</li>
 *   <li>hand the lease to a {@code Lease} parameter, and to {@link LockedContext} for the call;</li>
 *   <li>run the method, with a {@link LossSignal} that interrupts it if the lease is lost and the
 *       method asked for it ({@link Locked#interruptOnLoss()});</li>
 *   <li>release, or with {@link Locked#lockAtLeastFor()} leave the lock to expire at the
 *       acquisition + that time when it is still ahead; and throw {@link LockLostException} instead of the outcome if the lease was lost
 *       before the release; except on a {@code @Scheduled} method that returned normally, whose
 *       only caller is the scheduler: there the loss is expected on a busy machine, and is logged
 *       as one WARN line (lock, reason, how long the method ran) instead of the scheduler's ERROR
 *       with a stack trace.</li>
 * </ol>
 * The parsed annotation of each method is cached ({@link LockedMethod}).
 */
final class LockedInterceptor implements MethodInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(LockedInterceptor.class);

    private final Supplier<Locks> locks;
    private final BeanFactory beanFactory;
    private final UnaryOperator<String> placeholders;
    private final ParameterNameDiscoverer names = new DefaultParameterNameDiscoverer();
    private final Map<Method, LockedMethod> methods = new ConcurrentHashMap<>();

    /**
     * @param locks the lock client, looked up at the first call (so the advisor does not create it early)
     * @param beanFactory for {@code @bean} references in expressions, or null
     * @param placeholders resolves {@code ${...}} in ttl, wait and lockAtLeastFor
     */
    LockedInterceptor(Supplier<Locks> locks, BeanFactory beanFactory, UnaryOperator<String> placeholders) {
        this.locks = locks;
        this.beanFactory = beanFactory;
        this.placeholders = placeholders;
    }

    /**
     * @return the parsed annotation of {@code method} (the most specific one for the target class),
     *     or null when it has none
     * @throws IllegalStateException if the annotation is invalid
     */
    LockedMethod lookup(Method method, Class<?> targetClass) {
        Method specific = targetClass == null ? method : AopUtils.getMostSpecificMethod(method, targetClass);
        return methods.computeIfAbsent(specific, m -> {
            Locked locked = AnnotatedElementUtils.findMergedAnnotation(m, Locked.class);
            if (locked == null && m != method) {
                locked = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
            }
            return locked == null ? null : LockedMethod.of(m, locked, placeholders);
        });
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        LockedMethod m = lookup(invocation.getMethod(), target == null ? null : AopUtils.getTargetClass(target));
        if (m == null) {
            return invocation.proceed();
        }
        Object[] args = invocation.getArguments();
        String resource = resource(m, target, args);
        AcquireOptions options = m.watchdog ? AcquireOptions.defaults().withWatchdog() : AcquireOptions.defaults();
        Lease lease;
        switch (m.whenBusy) {
            case SKIP -> {
                Optional<Lease> got = locks.get().tryAcquire(resource, m.ttl, options);
                if (got.isEmpty()) {
                    return m.skipped();
                }
                lease = got.get();
            }
            case THROW -> lease = locks.get().tryAcquire(resource, m.ttl, options)
                    .orElseThrow(() -> new LockBusyException(resource, "lock '" + resource + "' is held by another caller", null));
            default -> lease = waitFor(resource, m, options);
        }
        if (m.leaseParameter >= 0) {
            args[m.leaseParameter] = lease;
        }
        LossSignal signal = new LossSignal(Thread.currentThread(), m.interruptOnLoss);
        // Not onLost: its listeners run on the common pool, which a busy application (or a
        // one-thread pool on a small machine, taken by this very method) can leave waiting. The
        // signal is a few field writes and an interrupt, safe on whichever thread marks the loss.
        lease.lost().whenComplete((reason, error) -> {
            if (reason != null) {
                signal.lost(reason);
            }
        });
        LockedContext.push(lease);
        long started = System.nanoTime();
        Object result = null;
        Throwable thrown = null;
        try {
            result = invocation.proceed();
        } catch (Throwable t) {
            thrown = t;
        } finally {
            signal.finish();
            LockedContext.pop();
        }
        RuntimeException releaseFailure = null;
        try {
            // compare-and-delete, or with an at-least time a token-checked expiry at acquisition +
            // that time (a delete once it has passed): either is safe if the lease was lost meanwhile,
            // and either ends the lease here, which stops its watchdog
            if (m.atLeast.isZero()) {
                lease.close();
            } else {
                lease.releaseAfter(m.atLeast.minusNanos(System.nanoTime() - started));
            }
        } catch (RuntimeException e) {
            releaseFailure = e;         // the lock then expires by its ttl; the method's outcome stands
        }
        Optional<LossReason> lost = lease.lossReason();
        if (lost.isPresent()) {
            if (m.scheduled && thrown == null) {
                LOG.warn("@Scheduled {}.{}: lost the lock on '{}' ({}) while it ran; it ran {} ms and returned, "
                        + "without exclusivity for all of that time", m.method.getDeclaringClass().getSimpleName(),
                        m.method.getName(), resource, lost.get(),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                return result;
            }
            throw new LockLostException(resource, lost.get(), thrown);
        }
        if (thrown != null) {
            if (releaseFailure != null) {
                thrown.addSuppressed(releaseFailure);
            }
            throw thrown;
        }
        if (releaseFailure != null) {
            LOG.warn("could not release '{}'; it expires by its ttl", resource, releaseFailure);
        }
        return result;
    }

    private Lease waitFor(String resource, LockedMethod m, AcquireOptions options) {
        try {
            return locks.get().acquire(resource, m.ttl, m.wait, options);
        } catch (LockWaitTimeoutException e) {
            throw new LockBusyException(resource, "lock '" + resource + "' still held after waiting " + m.wait, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockBusyException(resource, "interrupted while waiting for lock '" + resource + "'", e);
        }
    }

    private String resource(LockedMethod m, Object target, Object[] args) {
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(target, m.method, args, names);
        if (beanFactory != null) {
            context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        }
        Object value;
        try {
            value = m.resource.getValue(context);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("@Locked on " + m.method.getDeclaringClass().getName() + "."
                    + m.method.getName() + ": resource expression \"" + m.expressionText + "\" failed: " + e.getMessage(), e);
        }
        if (value == null) {
            throw new IllegalArgumentException("@Locked on " + m.method.getDeclaringClass().getName() + "."
                    + m.method.getName() + ": resource expression \"" + m.expressionText + "\" gave null");
        }
        return value.toString();
    }
}
