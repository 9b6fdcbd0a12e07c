package io.echomq.spring.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.Job;
import io.echomq.queue.MissedFires;
import io.echomq.queue.QueueClient;
import io.echomq.queue.Schedule;
import io.echomq.queue.ScheduleInfo;
import io.echomq.queue.ScheduleSpec;
import io.echomq.queue.Schedules;
import io.echomq.spring.TestApps;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link EchoSchedule} on a real Redis: upserted at startup with its spec, fired to its handler,
 * which reads each job's fire time; unknown schedules removed only when asked; bad values stop
 * startup naming the method and the attribute; the catch-up threshold property reaches the client.
 */
class EchoScheduleTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    /** payload → what {@code job.scheduledFor()} answered, per handled job. */
    static final Map<String, Optional<Instant>> SEEN = new ConcurrentHashMap<>();
    /** fire time → the job's stored idempotency key, per scheduled job handled. */
    static final Map<Instant, String> KEYS = new ConcurrentHashMap<>();

    @BeforeEach
    void clean() {
        REDIS.flushAll();
        SEEN.clear();
        KEYS.clear();
    }

    static class Handlers {
        @EchoJobHandler(queue = "ticks")
        @EchoSchedule(name = "tick", every = "1s", payload = "tick")
        public void tick(String payload, Job job) {
            Optional<Instant> at = job.scheduledFor();
            SEEN.put(payload + (at.isPresent() ? "@" + at.get().toEpochMilli() : ""), at);
            at.ifPresent(t -> KEYS.put(t, String.valueOf(REDIS.raw().call("HGET", "emq:{ticks}:job:" + job.id(), "idem"))));
        }

        @EchoJobHandler(queue = "billing")
        @EchoSchedule(name = "nightly-billing", queue = "billing", cron = "0 0 2 * * *", zone = "Europe/Paris",
                missed = MissedFires.ONCE, payload = "{\"run\":\"nightly\"}", priority = 3, maxAttempts = 5)
        public void bill(String payload) {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Handlers handlers() {
            return new Handlers();
        }
    }

    private static ConfigurableApplicationContext start(Class<?> app, String... properties) {
        String[] all = new String[properties.length + 1];
        all[0] = "echomq.worker.maintenance-interval=100ms";
        System.arraycopy(properties, 0, all, 1, properties.length);
        return TestApps.start(app, REDIS.url(), all);
    }

    @Test
    void startupUpsertsEachScheduleWithItsSpec() {
        try (ConfigurableApplicationContext ctx = start(App.class, "echomq.worker.enabled=false")) {
            QueueClient client = ctx.getBean(QueueClient.class);
            ScheduleInfo nightly = client.schedules("billing").get("nightly-billing").orElseThrow();
            assertThat(nightly.schedule()).isEqualTo(Schedule.of("nightly-billing",
                    ScheduleSpec.cron("0 0 2 * * *", "Europe/Paris"), "{\"run\":\"nightly\"}")
                    .withMissed(MissedFires.ONCE).withPriority(3).withMaxAttempts(5));
            assertThat(nightly.nextFire()).isPresent();
            ScheduleInfo tick = client.schedules("ticks").get("tick").orElseThrow();
            assertThat(tick.schedule().spec()).isEqualTo(ScheduleSpec.every(Duration.ofSeconds(1)));
            assertThat(tick.schedule().missed()).isEqualTo(MissedFires.SKIP);
        }
        // a second start (another instance) stores the same schedules once, at a new version only
        try (ConfigurableApplicationContext ctx = start(App.class, "echomq.worker.enabled=false")) {
            assertThat(ctx.getBean(QueueClient.class).schedules("billing").count()).isEqualTo(1);
        }
    }

    @Test
    void theHandlerSeesEachFireTimeAndAPlainJobSeesNone() {
        try (ConfigurableApplicationContext ctx = start(App.class)) {
            ctx.getBean(EchoMQTemplate.class).enqueue("ticks", "plain");
            await().atMost(Duration.ofSeconds(15)).until(() -> SEEN.containsKey("plain")
                    && SEEN.keySet().stream().anyMatch(k -> k.startsWith("tick@")));
        }
        assertThat(SEEN.get("plain")).isEmpty();
        ScheduleSpec spec = ScheduleSpec.every(Duration.ofSeconds(1));
        assertThat(KEYS).isNotEmpty();
        KEYS.forEach((at, key) -> {
            assertThat(spec.nextAfter(at.minusMillis(1))).as("a fire time of the schedule").contains(at);
            assertThat(key).isEqualTo("schedule:tick:" + at.toEpochMilli());
        });
    }

    @Test
    void unknownSchedulesAreRemovedOnlyWhenAsked() {
        try (QueueClient other = QueueClient.create(REDIS.url())) {
            Schedule stale = Schedule.of("stale", ScheduleSpec.every(Duration.ofMinutes(1)), "old");
            other.schedules("ticks").upsert(stale);
            other.schedules("elsewhere").upsert(stale);

            try (ConfigurableApplicationContext ctx = start(App.class, "echomq.worker.enabled=false")) {
                assertThat(other.schedules("ticks").get("stale")).as("kept by default").isPresent();
            }
            try (ConfigurableApplicationContext ctx = start(App.class, "echomq.worker.enabled=false",
                    "echomq.schedules.remove-unknown=true")) {
                assertThat(other.schedules("ticks").get("stale")).as("removed when asked").isEmpty();
                assertThat(other.schedules("ticks").get("tick")).as("a declared one stays").isPresent();
                assertThat(other.schedules("elsewhere").get("stale")).as("a queue without a handler here").isPresent();
            }
        }
    }

    @Test
    void theThresholdPropertyDecidesWhatIsMissed() {
        try (ConfigurableApplicationContext ctx = start(App.class, "echomq.worker.enabled=false",
                "echomq.schedules.missed-after=5s")) {
            Schedules s = ctx.getBean(QueueClient.class).schedules("q");
            s.upsert(Schedule.of("ten", ScheduleSpec.every(Duration.ofSeconds(10)), "x"));
            long now = Long.parseLong(((List<?>) REDIS.raw().call("TIME")).get(0).toString()) * 1000;
            REDIS.raw().call("ZADD", "emq:{q}:schedules", Long.toString((now / 10_000 - 3) * 10_000), "ten");
            // 30 to 40 s late: on time under the default 60 s (4 jobs), missed and skipped under 5 s
            assertThat(s.fireDue()).isLessThanOrEqualTo(1);
        }
    }

    // --- bad values: each its own application -------------------------------------------------

    static class Both {
        @EchoJobHandler(queue = "b")
        @EchoSchedule(name = "s", every = "1m", cron = "0 * * * *")
        public void run() {
        }
    }

    static class Neither {
        @EchoJobHandler(queue = "b")
        @EchoSchedule(name = "s")
        public void run() {
        }
    }

    static class BadCron {
        @EchoJobHandler(queue = "b")
        @EchoSchedule(name = "s", cron = "0 0 25 * * *")
        public void run() {
        }
    }

    static class BadZone {
        @EchoJobHandler(queue = "b")
        @EchoSchedule(name = "s", cron = "0 0 2 * * *", zone = "Mars/Olympus")
        public void run() {
        }
    }

    static class BadName {
        @EchoJobHandler(queue = "b")
        @EchoSchedule(name = "two words", every = "1m")
        public void run() {
        }
    }

    static class BadEvery {
        @EchoJobHandler(queue = "b")
        @EchoSchedule(name = "s", every = "soon")
        public void run() {
        }
    }

    static class OtherQueue {
        @EchoJobHandler(queue = "b")
        @EchoSchedule(name = "s", queue = "c", every = "1m")
        public void run() {
        }
    }

    static class NoHandler {
        @EchoSchedule(name = "s", every = "1m")
        public void run() {
        }
    }

    static class Twice {
        @EchoJobHandler(queue = "b")
        @EchoSchedule(name = "s", every = "1m")
        public void one() {
        }

        @EchoJobHandler(queue = "b")
        @EchoSchedule(name = "s", every = "2m")
        public void two() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class BadApp {
        static Class<?> handlers;

        @Bean
        Object handlers() throws Exception {
            return handlers.getDeclaredConstructor().newInstance();
        }
    }

    @Test
    void aBadValueStopsStartupNamingTheMethodAndTheAttribute() {
        Map<Class<?>, String> bad = new java.util.LinkedHashMap<>();
        bad.put(Both.class, "cron, every: give exactly one of them, both were given");
        bad.put(Neither.class, "cron, every: give exactly one of them, neither was given");
        bad.put(BadCron.class, "cron: '0 0 25 * * *'");
        bad.put(BadZone.class, "zone: unknown time zone 'Mars/Olympus'");
        bad.put(BadName.class, "name: ");
        bad.put(BadEvery.class, "every: 'soon' is not a duration");
        bad.put(OtherQueue.class, "queue: 'c' is not the handler's queue 'b'");
        bad.put(NoHandler.class, "the method has no @EchoJobHandler");
        bad.put(Twice.class, "name: 's' is declared twice on queue 'b'");
        bad.forEach((type, message) -> {
            BadApp.handlers = type;
            Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() -> start(BadApp.class).close());
            assertThat(failure).as(type.getSimpleName() + " fails startup").isNotNull();
            Throwable ours = failure;
            while (ours != null && !(ours instanceof IllegalStateException && ours.getMessage().startsWith("@EchoSchedule"))) {
                ours = ours.getCause();
            }
            assertThat(ours).as(type.getSimpleName() + ": " + failure).isNotNull();
            assertThat(ours.getMessage()).as(type.getSimpleName()).contains(type.getName() + ".").contains(message);
        });
    }
}
