package io.echomq.spring.lock;

import io.echomq.lock.Lease;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.UnaryOperator;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;

/**
 * What one {@link Locked} annotation asks for, parsed and checked once per method: the resource
 * expression, the ttl, wait and at-least time, the policy, which parameter takes the lease, the value a
 * skipped call returns, and whether the method is a {@code @Scheduled} task. Parsing fails with an {@link IllegalStateException} naming the method, so
 * a mistake stops startup instead of the first call.
 */
final class LockedMethod {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();

    final Method method;
    final Expression resource;
    final String expressionText;
    final Duration ttl;
    final Duration wait;
    /** How long the lock stays taken at least, from the acquisition; zero for released at once. */
    final Duration atLeast;
    final boolean watchdog;
    final boolean interruptOnLoss;
    final WhenBusy whenBusy;
    final int leaseParameter;
    /** Whether the scheduler runs it ({@code @Scheduled}, {@code @Schedules}): it then has no caller. */
    final boolean scheduled;
    private final Object skipped;

    private LockedMethod(Method method, Locked locked, UnaryOperator<String> placeholders) {
        this.method = method;
        this.expressionText = locked.value();
        this.resource = parse(locked.value());
        this.ttl = duration("ttl", placeholders.apply(locked.ttl()));
        this.wait = duration("maxWait", placeholders.apply(locked.maxWait()));
        if (ttl.toMillis() < 1 || ttl.compareTo(io.echomq.lock.LockClient.MAX_TTL) > 0) {
            throw fail("ttl must be 1 ms to 1 day, was " + ttl);
        }
        if (wait.isNegative()) {
            throw fail("maxWait must be zero or more, was " + wait);
        }
        String atLeastText = placeholders.apply(locked.lockAtLeastFor());
        this.atLeast = atLeastText == null || atLeastText.isBlank() ? Duration.ZERO
                : duration("lockAtLeastFor", atLeastText.strip());
        if (atLeast.isNegative()) {
            throw fail("lockAtLeastFor must be zero or more, was " + atLeast);
        }
        if (atLeast.compareTo(ttl) > 0) {
            throw fail("lockAtLeastFor " + atLeast + " is longer than the ttl " + ttl
                    + ": the lock cannot be promised for longer than its lease; raise the ttl or shorten lockAtLeastFor");
        }
        this.watchdog = locked.watchdog();
        this.interruptOnLoss = locked.interruptOnLoss();
        this.whenBusy = locked.whenBusy();
        Class<?> returns = method.getReturnType();
        if (Future.class.isAssignableFrom(returns) || CompletionStage.class.isAssignableFrom(returns)
                || returns.getName().equals("org.reactivestreams.Publisher")
                || implementsPublisher(returns)) {
            throw fail("returns " + returns.getSimpleName() + ": the lock would be released when the method returns, "
                    + "before the work ends; lock inside the asynchronous work instead");
        }
        this.skipped = skipValue(returns);
        int lease = -1;
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            if (types[i] == Lease.class) {
                if (lease >= 0) {
                    throw fail("has more than one Lease parameter");
                }
                lease = i;
            }
        }
        this.leaseParameter = lease;
        this.scheduled = AnnotatedElementUtils.hasAnnotation(method, Scheduled.class)
                || AnnotatedElementUtils.hasAnnotation(method, Schedules.class);
    }

    /**
     * @param placeholders resolves {@code ${...}} in ttl, wait and lockAtLeastFor
     * @throws IllegalStateException naming the method if a setting is invalid
     */
    static LockedMethod of(Method method, Locked locked, UnaryOperator<String> placeholders) {
        return new LockedMethod(method, locked, placeholders);
    }

    /** @return what a call skipped by {@link WhenBusy#SKIP} returns */
    Object skipped() {
        return skipped;
    }

    private static boolean implementsPublisher(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Class<?> i : c.getInterfaces()) {
                if (i.getName().equals("org.reactivestreams.Publisher")) {
                    return true;
                }
            }
        }
        return false;
    }

    private Expression parse(String text) {
        if (text == null || text.isBlank()) {
            throw fail("has no resource expression");
        }
        try {
            return PARSER.parseExpression(text);
        } catch (ParseException e) {
            throw fail("resource expression \"" + text + "\" does not parse: " + e.getMessage());
        }
    }

    private Duration duration(String what, String text) {
        try {
            return DurationStyle.detectAndParse(text);
        } catch (RuntimeException e) {
            throw fail(what + " '" + text + "' is not a duration (30s, 500ms, PT2M)");
        }
    }

    IllegalStateException fail(String problem) {
        return new IllegalStateException("@Locked on " + method.getDeclaringClass().getName() + "." + method.getName()
                + ": " + problem);
    }

    private static Object skipValue(Class<?> type) {
        if (type == Optional.class) {
            return Optional.empty();
        } else if (type == OptionalInt.class) {
            return OptionalInt.empty();
        } else if (type == OptionalLong.class) {
            return OptionalLong.empty();
        } else if (type == OptionalDouble.class) {
            return OptionalDouble.empty();
        } else if (!type.isPrimitive() || type == void.class) {
            return null;
        } else if (type == boolean.class) {
            return false;
        } else if (type == char.class) {
            return '\0';
        } else if (type == byte.class) {
            return (byte) 0;
        } else if (type == short.class) {
            return (short) 0;
        } else if (type == int.class) {
            return 0;
        } else if (type == long.class) {
            return 0L;
        } else if (type == float.class) {
            return 0f;
        }
        return 0d;
    }
}
