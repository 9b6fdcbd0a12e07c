package io.echomq.bench;

import io.echomq.dashboard.Dashboard;
import io.echomq.lock.LockClient;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code emq bench dashboard}: every dashboard page's answer time on a large server.
 *
 * <ol>
 *   <li>Starts a redis-server of its own (the embedded one, or the binary {@code EMQ_REDIS_SERVER}
 *       names) and fills it: {@code --jobs} pending jobs in queue {@code big} by
 *       {@code Queue.enqueueAll} in batches of 10,000; a small queue {@code other} with jobs in
 *       the other states (delayed, active, dead, done); {@code --locks} held locks written as the
 *       lock's own keys, {@code emq:lock:{bench:<n>}:lock} (a token, {@code PX}) and its fence key,
 *       pipelined.</li>
 *   <li>Starts a dashboard on it and times each page over HTTP, {@code --rounds} requests each,
 *       the first request of each page included, and prints page, min, median and max in ms and
 *       PASS or FAIL of the median against {@code --target-ms}. The overview's first view (which
 *       starts the walk for queues and waits for it at most 100 ms) is timed on a dashboard of
 *       its own, once, after a stylesheet request has loaded the HTTP classes; the other pages
 *       on a second dashboard, once its walk has ended.</li>
 * </ol>
 *
 * <p>The last line is {@code dashboard: pages=<n> failed=<n> worst=<page>:<ms>}. Exit codes: 0
 * done (a page over the target is reported, not an error), 2 bad input, 3 Redis or a page
 * failed.
 */
@Command(name = "dashboard", mixinStandardHelpOptions = true,
        description = "Times every dashboard page over HTTP on a server filled with many jobs and locks.")
final class DashboardBench implements Callable<Integer> {
    private static final String TOKEN = "bench-token-0123456789";
    private static final int BATCH = 10_000;
    /** What the overview says while its first walk for queues runs. */
    private static final String FIRST_WALK_RUNNING = "The first walk of the keyspace for queues is still running";
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Spec
    CommandSpec spec;

    @Option(names = "--jobs", paramLabel = "N", defaultValue = "1000000",
            description = "Pending jobs in queue big (default ${DEFAULT-VALUE}).")
    int jobs;

    @Option(names = "--locks", paramLabel = "N", defaultValue = "1000000",
            description = "Held locks, with a 10-minute ttl (default ${DEFAULT-VALUE}).")
    int locks;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "7",
            description = "Requests per page; the median is compared (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--target-ms", paramLabel = "MS", defaultValue = "200",
            description = "The most a page's median may take (default ${DEFAULT-VALUE}).")
    long targetMs;

    private final List<String> failed = new ArrayList<>();
    private String worst = "-";
    private long worstMs = -1;

    @Override
    public Integer call() throws Exception {
        if (jobs < 1 || locks < 1 || rounds < 1 || targetMs < 1) {
            throw new ParameterException(spec.commandLine(), "--jobs, --locks, --rounds and --target-ms must be at least 1");
        }
        PrintWriter out = spec.commandLine().getOut();
        try (BenchServer server = BenchServer.open(null, out);
             QueueClient client = QueueClient.builder().redisUrl(server.url()).commandTimeout(Duration.ofSeconds(60)).build();
             LockClient lockClient = LockClient.create(server.url())) {
            fillJobs(out, client.queue("big"));
            String otherJob = fillOther(client.queue("other"));
            fillLocks(out, server.url());
            out.printf("keys: %,d (DBSIZE); %d cores, load average %.1f (the machine may be shared)%n",
                    server.sync().dbsize(), Runtime.getRuntime().availableProcessors(),
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            out.printf("%-52s %7s %7s %7s  %s%n", "page", "min", "median", "max", "target " + targetMs + " ms");
            try (Dashboard first = Dashboard.builder(client).locks(lockClient).token(TOKEN).start()) {
                get(first, "/static/dashboard.css");   // this JVM's first request: the HTTP classes, not a page
                row(out, "overview, the first view after start", first, "/", 1);
            }
            try (Dashboard d = Dashboard.builder(client).locks(lockClient).token(TOKEN).start()) {
                awaitFirstWalk(d);
                row(out, "overview", d, "/", rounds);
                row(out, "queue big, pending, first page", d, "/queue?name=big&state=pending", rounds);
                String page = get(d, "/queue?name=big&state=pending&limit=500");
                for (int i = 0; i < 20; i++) {
                    page = get(d, next(page));
                }
                row(out, "queue big, pending, a page after 10,500 jobs", d, next(page), rounds);
                row(out, "queue other, dead", d, "/queue?name=other&state=dead", rounds);
                row(out, "queue other, done", d, "/queue?name=other&state=done", rounds);
                row(out, "job page (pending job of big)", d, "/job?queue=big&id=" + (jobs / 2), rounds);
                row(out, "job page (dead job of other)", d, "/job?queue=other&id=" + otherJob, rounds);
                row(out, "schedules of big", d, "/schedules?queue=big", rounds);
                row(out, "workers, every queue", d, "/workers", rounds);
                row(out, "workers of big", d, "/workers?queue=big", rounds);
                row(out, "locks, first page", d, "/locks", rounds);
                String locksPage = get(d, "/locks");
                String locksNext = nextOrNull(locksPage);
                if (locksNext != null) {
                    row(out, "locks, next page (by its cursor)", d, locksNext, rounds);
                }
                row(out, "locks, a prefix no lock has", d, "/locks?prefix=none:", rounds);
                row(out, "lock page", d, "/lock?resource=bench:" + (locks / 2), rounds);
                row(out, "why it is safe", d, "/safety", rounds);
            }
            out.printf("dashboard: pages=%d failed=%d worst=%s:%d%n", pages, failed.size(), worst, worstMs);
        }
        return 0;
    }

    private int pages;

    private void fillJobs(PrintWriter out, Queue q) {
        long start = System.nanoTime();
        List<JobRequest> batch = new ArrayList<>(BATCH);
        for (int i = 0; i < jobs; i++) {
            batch.add(JobRequest.of("{\"n\":" + i + "}"));
            if (batch.size() == BATCH || i == jobs - 1) {
                q.enqueueAll(batch);
                batch.clear();
            }
        }
        out.printf("filled %,d pending jobs in %.1f s%n", jobs, (System.nanoTime() - start) / 1e9);
    }

    /** @return the id of a dead job */
    private static String fillOther(Queue q) {
        for (int i = 0; i < 100; i++) {
            q.enqueue(("{\"d\":" + i + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        }
        List<JobRequest> now = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            now.add(JobRequest.of("{\"o\":" + i + "}", EnqueueOptions.defaults().withMaxAttempts(1)));
        }
        q.enqueueAll(now);
        String dead = null;
        for (Job j : q.claim(100, Duration.ofMinutes(1))) {
            j.fail("bench: a failure");
            dead = j.id();
        }
        for (Job j : q.claim(100, Duration.ofMinutes(1))) {
            j.complete();
        }
        q.claim(50, Duration.ofMinutes(30));   // left active
        return dead;
    }

    /** Writes each lock as the core's acquire does: the lock key with its token and ttl, and its fence key. */
    private void fillLocks(PrintWriter out, String url) throws Exception {
        long start = System.nanoTime();
        RedisClient raw = RedisClient.create(url);
        try (StatefulRedisConnection<String, String> c = raw.connect()) {
            c.setAutoFlushCommands(false);
            RedisAsyncCommands<String, String> a = c.async();
            SetArgs px = SetArgs.Builder.nx().px(TimeUnit.MINUTES.toMillis(10));
            SetArgs fencePx = SetArgs.Builder.px(TimeUnit.MINUTES.toMillis(10));
            long fence = System.currentTimeMillis() * 1000;
            List<RedisFuture<String>> sent = new ArrayList<>(2 * BATCH);
            for (int i = 0; i < locks; i++) {
                String r = "bench:" + i;
                sent.add(a.set("emq:lock:{" + r + "}:lock", Long.toHexString(fence + i) + "-bench-token", px));
                sent.add(a.set("emq:lock:{" + r + "}:fence", Long.toString(fence + i), fencePx));
                if (sent.size() == 2 * BATCH || i == locks - 1) {
                    c.flushCommands();
                    for (RedisFuture<String> f : sent) {
                        f.get(60, TimeUnit.SECONDS);
                    }
                    sent.clear();
                }
            }
        } finally {
            raw.shutdown();
        }
        out.printf("filled %,d held locks (lock and fence keys) in %.1f s%n", locks, (System.nanoTime() - start) / 1e9);
    }

    private void row(PrintWriter out, String what, Dashboard d, String path, int n) throws Exception {
        long[] ms = new long[n];
        for (int i = 0; i < n; i++) {
            long start = System.nanoTime();
            get(d, path);
            ms[i] = (System.nanoTime() - start) / 1_000_000;
        }
        Arrays.sort(ms);
        long median = ms[n / 2];
        boolean pass = median < targetMs;
        pages++;
        if (!pass) {
            failed.add(what);
        }
        if (median > worstMs) {
            worstMs = median;
            worst = what.replace(' ', '_');
        }
        out.printf("%-52s %4d ms %4d ms %4d ms  %s%n", what, ms[0], median, ms[n - 1], pass ? "PASS" : "FAIL");
    }

    /** Polls the overview until it shows the first walk's answer (at most 2 minutes), so that the usual view is timed. */
    private static void awaitFirstWalk(Dashboard d) throws Exception {
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (get(d, "/").contains(FIRST_WALK_RUNNING)) {
            if (System.nanoTime() > end) {
                throw new IllegalStateException("the dashboard's first walk for queues did not end within 2 minutes");
            }
        }
    }

    private static String get(Dashboard d, String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(d.uri() + path.substring(1)))
                .header("X-EMQ-Token", d.token()).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(path + " answered " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    private static String next(String page) {
        String n = nextOrNull(page);
        if (n == null) {
            throw new IllegalStateException("no next page");
        }
        return n;
    }

    private static String nextOrNull(String page) {
        Matcher m = Pattern.compile("<a rel=\"next\" href=\"([^\"]+)\"").matcher(page);
        return m.find() ? m.group(1).replace("&amp;", "&") : null;
    }
}
