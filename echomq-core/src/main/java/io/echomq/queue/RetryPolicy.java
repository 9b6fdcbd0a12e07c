package io.echomq.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * A worker's rules for what a handler's exception does to its job: a retry with the job's own
 * backoff, a retry with another backoff, a retry after an exact delay, or dead now
 * ({@link RetryAction}). Immutable; built with {@link #builder()} and given to a worker with
 * {@link Worker.Builder#retryPolicy(RetryPolicy)}.
 *
 * <p>The rules are tried in the order given and the first that matches decides. A rule for a type
 * matches that type and its subclasses (the thrown exception itself, not its causes); a predicate
 * rule matches when its predicate returns true (a predicate that throws is treated as no match).
 * An exception no rule matches retries with the job's own backoff.
 *
 * <p><b>Precedence</b>, highest first:
 * <ol>
 *   <li>the handler's own signal: a {@link NonRetryableException} sends the job to dead now, and a
 *       {@link RetryAfterException} asks for a retry after its delay, whatever the rules say;</li>
 *   <li>the first rule here that matches;</li>
 *   <li>what the producer stored in the job ({@link EnqueueOptions#withBackoff}).</li>
 * </ol>
 * The producer's {@code max_attempts} ({@link EnqueueOptions#withMaxAttempts}) bounds every retry:
 * a policy can shorten a job's life (no retry) or change its delays, never add attempts.
 */
public final class RetryPolicy {
    private final List<Rule> rules;

    private RetryPolicy(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    /** @return a builder with no rules */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the policy with no rules: every exception retries with the job's own backoff */
    public static RetryPolicy defaults() {
        return new RetryPolicy(List.of());
    }

    /**
     * @param error a handler's exception
     * @return the action of the first rule that matches {@code error}, or {@link RetryAction#retry()};
     *         the handler's own signals ({@link NonRetryableException}, {@link RetryAfterException})
     *         are not looked at here: a worker applies them first
     */
    public RetryAction actionFor(Throwable error) {
        for (Rule r : rules) {
            if (r.matches(error)) {
                return r.action;
            }
        }
        return RetryAction.retry();
    }

    @Override
    public String toString() {
        return "RetryPolicy" + rules;
    }

    /** One rule: a type or a predicate, and its action. */
    private static final class Rule {
        final Class<? extends Throwable> type;
        final Predicate<? super Throwable> test;
        final RetryAction action;

        Rule(Class<? extends Throwable> type, Predicate<? super Throwable> test, RetryAction action) {
            this.type = type;
            this.test = test;
            this.action = action;
        }

        boolean matches(Throwable error) {
            if (type != null) {
                return type.isInstance(error);
            }
            try {
                return test.test(error);
            } catch (RuntimeException e) {
                return false;
            }
        }

        @Override
        public String toString() {
            return (type != null ? type.getSimpleName() : "predicate") + " -> " + action;
        }
    }

    /**
     * Collects rules in order. Not thread-safe; {@link #build()} checks them and copies them out.
     */
    public static final class Builder {
        private final List<Rule> rules = new ArrayList<>();
        private final List<String> problems = new ArrayList<>();

        private Builder() {
        }

        /**
         * Adds a rule for {@code type} and its subclasses. A null is reported by {@link #build()}.
         *
         * @param type   the exception type the rule matches, subclasses included
         * @param action what a matching exception does to its job
         * @return this builder
         */
        public Builder on(Class<? extends Throwable> type, RetryAction action) {
            if (type == null) {
                problems.add("rule " + (rules.size() + 1) + ": exception type must not be null");
            }
            if (action == null) {
                problems.add("rule " + (rules.size() + 1) + ": action must not be null");
            }
            rules.add(new Rule(type, null, action));
            return this;
        }

        /**
         * Adds a rule for every exception {@code test} accepts. A null is reported by {@link #build()}.
         *
         * @param test   decides whether the rule matches; one that throws counts as no match
         * @param action what a matching exception does to its job
         * @return this builder
         */
        public Builder when(Predicate<? super Throwable> test, RetryAction action) {
            if (test == null) {
                problems.add("rule " + (rules.size() + 1) + ": predicate must not be null");
            }
            if (action == null) {
                problems.add("rule " + (rules.size() + 1) + ": action must not be null");
            }
            rules.add(new Rule(null, test, action));
            return this;
        }

        /**
         * @return the policy
         * @throws IllegalArgumentException naming each bad rule: a null type, predicate or action, or a
         *         type rule that can never match because an earlier type rule covers its type
         */
        public RetryPolicy build() {
            List<String> found = new ArrayList<>(problems);
            for (int i = 0; i < rules.size(); i++) {
                Rule later = rules.get(i);
                for (int j = 0; j < i && later.type != null; j++) {
                    Rule earlier = rules.get(j);
                    if (earlier.type != null && earlier.type.isAssignableFrom(later.type)) {
                        found.add("rule " + (i + 1) + " for " + later.type.getName() + " can never match: rule "
                                + (j + 1) + " for " + earlier.type.getName() + " matches it first");
                        break;
                    }
                }
            }
            if (!found.isEmpty()) {
                throw new IllegalArgumentException("retry policy: " + String.join("; ", found));
            }
            return new RetryPolicy(rules);
        }
    }
}
