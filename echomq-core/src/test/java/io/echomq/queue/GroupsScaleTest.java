package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The claim's cost does not grow with the number of groups (each step is O(log G)), and what one
 * group costs in memory. Two queues side by side: {@code few} with 10 groups, {@code many} with
 * {@code emq.groups.scale} groups (10,000 by default, to keep the suite quick; run with
 * {@code -Demq.groups.scale=100000} for the documented figure). Blocks of claims, each completing
 * the job before, alternate between them; the server's own time for each block is read from
 * {@code INFO commandstats} (script time only, no network), and the median block of {@code many}
 * must stay within 2x of the median of {@code few}.
 */
@Timeout(300)
class GroupsScaleTest extends QueueTestBase {
    private static final int GROUPS = Integer.getInteger("emq.groups.scale", 10_000);
    private static final int BLOCK = 200;
    private static final int BLOCKS = 5;
    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Pattern EVALSHA = Pattern.compile("cmdstat_evalsha:calls=(\\d+),usec=(\\d+)");

    @Test
    void claimCostWithManyGroupsStaysWithinTwiceTheCostWithTen() {
        Queue few = client.queue("few");
        Queue many = client.queue("many");
        fill(few, 10, BLOCK * BLOCKS / 10 + 10);
        fill(many, GROUPS, 1);
        assertThat(many.stats().pending()).isEqualTo(GROUPS);

        long[] fewUs = new long[BLOCKS];
        long[] manyUs = new long[BLOCKS];
        Job[] held = {few.claim(LEASE).orElseThrow(), many.claim(LEASE).orElseThrow()};
        for (int b = 0; b < BLOCKS; b++) {
            fewUs[b] = block(held, 0);
            manyUs[b] = block(held, 1);
        }
        Arrays.sort(fewUs);
        Arrays.sort(manyUs);
        long fewMedian = fewUs[BLOCKS / 2];
        long manyMedian = manyUs[BLOCKS / 2];
        System.out.printf("groups: server time per claim, median of %d blocks of %d: 10 groups %.1f us, %d groups %.1f us%n",
                BLOCKS, BLOCK, fewMedian / (double) BLOCK, GROUPS, manyMedian / (double) BLOCK);
        assertThat(manyMedian).as("server us per block with %d groups vs 10", GROUPS).isLessThan(2 * fewMedian);

        // memory per group: its one-job LIST, its field in group:waiting and its member of the rotation
        long list = memory("emq:{many}:g:m" + (GROUPS - 1));
        long waiting = memory("emq:{many}:group:waiting");
        long rotation = memory("emq:{many}:groups");
        long left = (Long) raw().call("HLEN", "emq:{many}:group:waiting");
        assertThat(left).as("groups still waiting").isEqualTo(GROUPS - BLOCK * BLOCKS - 1);
        double perGroup = list + (waiting + rotation) / (double) left;
        System.out.printf("groups: memory per waiting group: %d B list + %.0f B group:waiting + %.0f B rotation = %.0f B%n",
                list, waiting / (double) left, rotation / (double) left, perGroup);
        assertThat(perGroup).as("bytes per waiting group").isLessThan(400);
    }

    /** Fills {@code q} with {@code groups} groups of {@code each} jobs, pipelined 1,000 jobs per script call. */
    private static void fill(Queue q, int groups, int each) {
        String name = q.name().substring(0, 1);
        List<JobRequest> batch = new ArrayList<>();
        for (int i = 0; i < each; i++) {
            for (int g = 0; g < groups; g++) {
                batch.add(new JobRequest(new byte[] {'x'}, EnqueueOptions.defaults().withGroup(name + g)));
                if (batch.size() == 10_000) {
                    q.enqueueAll(batch);
                    batch.clear();
                }
            }
        }
        if (!batch.isEmpty()) {
            q.enqueueAll(batch);
        }
    }

    /** @return the server's microseconds for BLOCK claims of held[i]'s queue, each completing the job before */
    private long block(Job[] held, int i) {
        // the server that holds the queue's slot (the one server, or its master on a cluster)
        io.echomq.server.RedisServer node = REDIS.serverFor("emq:{" + held[i].queueName() + "}:active");
        try (io.echomq.server.RawRedis conn = io.echomq.server.RawRedis.connect(node.host(), node.port())) {
            long before = scriptUsec(conn);
            for (int n = 0; n < BLOCK; n++) {
                held[i] = held[i].completeAndClaimNext(LEASE).orElseThrow();
            }
            return scriptUsec(conn) - before;
        }
    }

    private static long scriptUsec(io.echomq.server.RawRedis conn) {
        Object info = conn.call("INFO", "commandstats");
        String text = info instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(info);
        Matcher m = EVALSHA.matcher(text);
        assertThat(m.find()).as("INFO commandstats has evalsha").isTrue();
        return Long.parseLong(m.group(2));
    }

    private long memory(String key) {
        return (Long) raw().call("MEMORY", "USAGE", key, "SAMPLES", "0");
    }
}
