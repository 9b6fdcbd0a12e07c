package io.echomq.spring.lock;

import java.lang.reflect.Method;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.Ordered;

/**
 * Puts {@link LockedInterceptor} around every bean method annotated {@link Locked}. Matching a
 * method parses its annotation, so an invalid one fails when the bean is created.
 *
 * <p>Its order is {@link #ORDER}, ahead of {@code @Transactional} and {@code @Async}'s default
 * ({@link Ordered#LOWEST_PRECEDENCE}): the lock is taken before a transaction begins and
 * released after it commits, so a fence written in the transaction is committed while the lock
 * is still held.
 */
public final class LockedAdvisor extends AbstractPointcutAdvisor {
    private static final long serialVersionUID = 1L;

    /** The advisor's order: outside the transaction advisor's default. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

    private final transient LockedInterceptor interceptor;
    private final transient Pointcut pointcut;

    LockedAdvisor(LockedInterceptor interceptor) {
        this.interceptor = interceptor;
        this.pointcut = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return interceptor.lookup(method, targetClass) != null;
            }
        };
        setOrder(ORDER);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
