package io.echomq.dashboard;

import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.server.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Not a test: the timings of docs/dashboard.md, "Large queues". Fills one queue with N pending
 * jobs (default 1,000,000) and takes 20 locks on an embedded redis-server (or the server of
 * {@code args[1]}), then times the overview (with and without its SCAN walk), a job-list page
 * (first and after a cursor), a job page and the locks page over real HTTP, {@value #ROUNDS} rounds each, and prints min / median / max.
 *
 * <pre>
 * mvn -B -q -o -pl echomq-dashboard -am test-compile
 * mvn -B -q -o -pl echomq-dashboard dependency:build-classpath -Dmdep.outputFile=/tmp/dash.cp -Dmdep.includeScope=test
 * java -cp echomq-dashboard/target/test-classes:echomq-dashboard/target/classes:echomq-core/target/classes:$(cat /tmp/dash.cp) \
 *     io.echomq.dashboard.DashboardBench 1000000
 * </pre>
 */
public final class DashboardBench {
    static final int ROUNDS = 9;

    private DashboardBench() {
    }

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        RedisServer server = args.length > 1 ? null : RedisServer.builder().port(0).start();
        String url = server != null ? server.url() : args[1];
        try (QueueClient client = QueueClient.builder().redisUrl(url).commandTimeout(java.time.Duration.ofSeconds(60))
                .build(); io.echomq.lock.LockClient locks = io.echomq.lock.LockClient.create(url)) {
            for (int i = 0; i < 20; i++) {
                locks.tryAcquire("orders:" + i, java.time.Duration.ofMinutes(10));
            }
            fill(client.queue("big"), jobs);
            client.queue("small").enqueue("x");
            System.out.println("server: " + client.serverDescription() + ", keys: " + jobs + " job hashes + a few");
            try (Dashboard d = Dashboard.builder(client).locks(locks).token("bench-token-0123456789").start();
                 Dashboard cached = Dashboard.builder(client).token("bench-token-0123456789").start()) {
                Dashboard walking = Dashboard.builder(client).token("bench-token-0123456789")
                        .rescanAfter(java.time.Duration.ZERO).start();
                try (walking) {
                    time("overview, SCAN walk on every view", walking, "/");
                }
                get(cached, "/");   // the walk, kept for the next views
                time("overview, walk kept (the usual view)", cached, "/");
                time("job list, first page of 50", d, "/queue?name=big&state=pending&limit=50");
                String page = get(d, "/queue?name=big&state=pending&limit=500");
                for (int i = 0; i < 100; i++) {   // 50,000 jobs into the queue
                    page = get(d, next(page));
                }
                time("job list, 50 after 50,500 jobs (cursor)", d, next(page).replace("limit=500", "limit=50"));
                time("job list, page of 500", d, "/queue?name=big&state=pending&limit=500");
                time("job page", d, "/job?queue=big&id=" + (jobs / 2));
                time("locks page, 20 held (a whole walk)", d, "/locks");
                time("locks page, limit=5 (stops early)", d, "/locks?limit=5");
            }
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    private static void fill(Queue q, int jobs) {
        long start = System.nanoTime();
        List<JobRequest> batch = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            batch.add(JobRequest.of("{\"n\":" + i + "}"));
            if (batch.size() == 10_000 || i == jobs - 1) {
                q.enqueueAll(batch);
                batch.clear();
            }
        }
        System.out.printf("filled %,d pending jobs in %.1f s%n", jobs, (System.nanoTime() - start) / 1e9);
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static String get(Dashboard d, String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(d.uri() + path.substring(1)))
                .header("X-EMQ-Token", d.token()).GET().build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(path + " answered " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }

    private static String next(String page) {
        Matcher m = Pattern.compile("<a rel=\"next\" href=\"([^\"]+)\"").matcher(page);
        if (!m.find()) {
            throw new IllegalStateException("no next page");
        }
        return m.group(1).replace("&amp;", "&");
    }

    private static void time(String what, Dashboard d, String path) throws Exception {
        long[] ms = new long[ROUNDS];
        for (int i = 0; i < ROUNDS; i++) {
            long start = System.nanoTime();
            get(d, path);
            ms[i] = (System.nanoTime() - start) / 1_000_000;
        }
        Arrays.sort(ms);
        System.out.printf("%-44s min %4d ms  median %4d ms  max %4d ms%n", what, ms[0], ms[ROUNDS / 2], ms[ROUNDS - 1]);
    }
}
