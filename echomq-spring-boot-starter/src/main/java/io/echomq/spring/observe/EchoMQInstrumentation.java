package io.echomq.spring.observe;

import io.echomq.observe.Instrumentation;
import java.util.List;
import java.util.Objects;

/**
 * The instrumentation the starter builds its lock and queue clients with: every
 * {@link Instrumentation} bean of the context in one (Micrometer's {@code EchoMQMetrics} and
 * OpenTelemetry's {@code EchoMQTracing} when the starter made them, and any of the
 * application's own), or {@link Instrumentation#NONE} when there is none.
 *
 * <p>It is a bean, so that an application which builds its own client gets the same meters and
 * spans in one line:
 * <pre>{@code
 * @Bean
 * QueueClient queueClient(EchoMQInstrumentation instrumentation) {
 *     return QueueClient.builder().redisUrl("redis://queues.internal:6379")
 *             .instrumentation(instrumentation.get()).build();
 * }
 * }</pre>
 * The same {@code .instrumentation(instrumentation.get())} fits {@code LockClient.builder()} and
 * {@code RedlockClient.builder()}.
 */
public final class EchoMQInstrumentation {
    private final Instrumentation instrumentation;
    private final List<Instrumentation> parts;

    /**
     * @param parts the instrumentations to call, in this order for every event; none gives
     *     {@link Instrumentation#NONE}, one is used as it is
     * @throws NullPointerException if the list or one of its elements is null
     */
    public EchoMQInstrumentation(List<? extends Instrumentation> parts) {
        this.parts = List.copyOf(Objects.requireNonNull(parts, "parts"));
        this.instrumentation = switch (this.parts.size()) {
            case 0 -> Instrumentation.NONE;
            case 1 -> this.parts.get(0);
            default -> new CombinedInstrumentation(this.parts);
        };
    }

    /** @return the instrumentation to give to a client's builder; never null */
    public Instrumentation get() {
        return instrumentation;
    }

    /** @return the instrumentations it calls, in order; empty when it records nothing */
    public List<Instrumentation> parts() {
        return parts;
    }

    @Override
    public String toString() {
        return "EchoMQInstrumentation" + parts;
    }
}
