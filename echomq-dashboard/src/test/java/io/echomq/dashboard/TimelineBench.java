package io.echomq.dashboard;

import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import io.echomq.server.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Not a test: the timeline's timings of docs/dashboard.md, "Large queues". Fills one queue's
 * events stream past its default cap (6,000 jobs claimed and completed: 12,000 events, the stream
 * keeps about 10,000) on an embedded redis-server, then times a job page over real HTTP, 9 rounds
 * each: a recent job (its events in the default window of 1,000), an old one (none in the
 * window) and the old one with the largest window (10,000), and prints min / median / max.
 *
 * <pre>
 * mvn -B -q -o -pl echomq-dashboard -am test-compile
 * mvn -B -q -o -pl echomq-dashboard dependency:build-classpath -Dmdep.outputFile=/tmp/dash.cp -Dmdep.includeScope=test
 * java -cp echomq-dashboard/target/test-classes:echomq-dashboard/target/classes:echomq-core/target/classes:$(cat /tmp/dash.cp) \
 *     io.echomq.dashboard.TimelineBench
 * </pre>
 */
public final class TimelineBench {
    private TimelineBench() {
    }

    public static void main(String[] args) throws Exception {
        RedisServer server = RedisServer.builder().port(0).start();
        try (QueueClient client = QueueClient.create(server.url())) {
            Queue q = client.queue("busy");
            int jobs = 6000;
            List<String> ids = new java.util.ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                ids.add(q.enqueue("p" + i));
            }
            for (int i = 0; i < jobs; i += 100) {
                for (Job j : q.claim(100, Duration.ofMinutes(1))) {
                    j.complete();
                }
            }
            String old = ids.get(0);
            String recent = ids.get(jobs - 1);
            try (Dashboard d = Dashboard.builder(client).token("bench-token-0123456789").start()) {
                HttpClient http = HttpClient.newHttpClient();
                for (String[] c : new String[][] {{"recent job, window 1,000", "/job?queue=busy&id=" + recent},
                        {"old job, window 1,000", "/job?queue=busy&id=" + old},
                        {"old job, window 10,000", "/job?queue=busy&id=" + old + "&window=10000"}}) {
                    long[] t = new long[9];
                    for (int r = 0; r < t.length; r++) {
                        long s = System.nanoTime();
                        HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create(d.uri() + c[1].substring(1)))
                                .header("X-EMQ-Token", "bench-token-0123456789").build(),
                                HttpResponse.BodyHandlers.ofString());
                        t[r] = (System.nanoTime() - s) / 1_000_000;
                        if (resp.statusCode() != 200) {
                            throw new AssertionError(resp.body());
                        }
                        if (r == 0) {
                            System.out.println(c[0] + ": events shown " + (resp.body().split("class=\"event ").length - 1));
                        }
                    }
                    Arrays.sort(t);
                    System.out.println(c[0] + ": min " + t[0] + " ms, median " + t[4] + " ms, max " + t[8] + " ms");
                }
            }
        } finally {
            server.close();
        }
    }
}
