package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.RedisCommandException;
import io.echomq.internal.QueueKeys;
import io.echomq.internal.Scripts;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ZSET layout ({@link QueueLayout#ZSET}, docs/protocol.md "Pending layouts"): every pending
 * job, priority 0 included, in the pending ZSET, so that a consumer that knows only
 * {@code ZPOPMIN emq:{q}:pending} gets every job, in our claim order. Layout assertions read
 * Redis raw.
 *
 * <p>The foreign consumer is the seed's {@code @claim} script, the EchoMQ course's
 * {@code echo/apps/echo_mq/lib/echo_mq/jobs.ex} (its page "R2.02.1 · Distributed locking", §4),
 * kept verbatim, annotations and all, in {@code seed-claim.txt}. The page annotates lines with a
 * trailing {@code # …}, which is not Lua; {@link #seedClaim()} strips exactly those (a {@code #}
 * followed by a space: Lua's length operator, as in {@code #popped}, is never followed by one)
 * and keeps every other character.
 */
@Timeout(60)
class ZsetLayoutTest extends SemanticsTestBase {
    private static final Duration SHORT = Duration.ofMillis(60);

    /** The seed's {@code @claim} as Lua: the page's text with its trailing {@code # …} annotations removed. */
    static String seedClaim() throws IOException {
        try (InputStream in = ZsetLayoutTest.class.getResourceAsStream("seed-claim.txt")) {
            String page = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return page.lines().map(l -> l.replaceFirst("(^|\\s+)# .*$", "")).collect(Collectors.joining("\n"));
        }
    }

    /** Runs the seed's {@code @claim} until it answers {} and returns the ids it got, in order. */
    private List<String> seedClaimAll(String script) {
        List<String> ids = new ArrayList<>();
        while (true) {
            List<?> got = (List<?>) raw().call("EVAL", script, "2", PENDING, ACTIVE, P + "job:", "30000");
            if (got.isEmpty()) {
                return ids;
            }
            ids.add(got.get(0).toString());
        }
    }

    private String enqueue(String payload, int priority) {
        return queue.enqueue(payload.getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withPriority(priority)).id();
    }

    private List<String> claimAllIds() {
        List<String> out = new ArrayList<>();
        List<Job> batch;
        while (!(batch = queue.claim(3, LONG_LEASE)).isEmpty()) {
            batch.forEach(j -> out.add(j.id()));
        }
        return out;
    }

    /** Enqueues a mix of priorities, 0 the most, and returns the ids in claim order. */
    private List<String> fillMixed() {
        String zero1 = enqueue("zero-1", 0);
        String minus1 = enqueue("minus-1", -1);
        String three1 = enqueue("three-1", 3);
        List<String> bulk = queue.enqueueAll(List.of(JobRequest.of("bulk-1"), JobRequest.of("bulk-2")))
                .stream().map(EnqueueResult::id).toList();
        String one = enqueue("one", 1);
        String three2 = enqueue("three-2", 3);
        String zero2 = enqueue("zero-2", 0);
        List<String> order = new ArrayList<>(List.of(three1, three2, one, zero1));
        order.addAll(bulk);
        order.add(zero2);
        order.add(minus1);
        return order;
    }

    @Test
    void theSeedClaimRunVerbatimGetsEveryJobOfAZsetLayoutQueueInOurClaimOrder() throws Exception {
        String seed = seedClaim();
        assertThat(seed).contains("redis.call('ZPOPMIN', KEYS[1])").contains("if #popped == 0 then return {} end")
                .doesNotContain("# ");
        assertThat(queue.setLayout(QueueLayout.ZSET)).isEqualTo(new LayoutChange(QueueLayout.ZSET, true, 0));
        List<String> order = fillMixed();
        assertThat(exists(WAIT_LIST)).as("nothing in the LIST").isFalse();

        assertThat(seedClaimAll(seed)).containsExactlyElementsOf(order);
        assertThat(card(ACTIVE)).isEqualTo(order.size());
        assertThat(field(order.get(0), "attempts")).as("the seed's fence").isEqualTo("1");
    }

    @Test
    void theSeedClaimMissesPriorityZeroOfAListLayoutQueueTheDefault() throws Exception {
        assertThat(queue.layout()).isEqualTo(QueueLayout.LIST);
        List<String> order = fillMixed();
        assertThat(exists(P + "layout")).as("the default stores nothing").isFalse();
        assertThat(waiting()).hasSize(4);

        List<String> seen = seedClaimAll(seedClaim());
        assertThat(seen).as("only the ZSET's jobs").hasSize(order.size() - 4);
        assertThat(queue.stats().pending()).isEqualTo(4);
    }

    @Test
    void ourClaimReadsTheZsetLayoutInClaimOrder() {
        queue.setLayout(QueueLayout.ZSET);
        List<String> order = fillMixed();
        assertThat(members(PENDING)).containsExactlyElementsOf(order);
        assertThat(queue.stats().pending()).isEqualTo(order.size());
        assertThat(queue.list(JobState.PENDING, 100, null).jobs()).extracting(JobSummary::id)
                .containsExactlyElementsOf(order);
        assertThat(claimAllIds()).containsExactlyElementsOf(order);
    }

    @Test
    void promoteRedriveReturnAndReapKeepPriorityZeroInTheZset() {
        queue.setLayout(QueueLayout.ZSET);
        String delayed = queue.enqueue("delayed".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withDelay(Duration.ofMillis(300))).id();
        String doomed = queue.enqueue("doomed".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withMaxAttempts(1)).id();
        assertThat(queue.claim(LONG_LEASE).orElseThrow().fail("boom")).isEqualTo(SettleOutcome.DEAD);
        String first = queue.enqueue("first");
        String second = queue.enqueue("second");
        awaitServerTimePast(score(DELAYED, delayed));

        assertThat(queue.promote(10)).isEqualTo(1);
        assertThat(queue.redrive(10)).isEqualTo(1);
        assertThat(members(PENDING)).as("each to the back of band 0").containsExactly(first, second, delayed, doomed);

        Job returned = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(returned.id()).isEqualTo(first);
        assertThat(returned.returnLease()).isEqualTo(SettleOutcome.RETURNED);
        Job reaped = queue.claim(SHORT).orElseThrow();
        assertThat(reaped.id()).isEqualTo(first);
        awaitLeaseExpired(first);
        assertThat(queue.reap(10)).isEqualTo(new ReapResult(1, 0));

        assertThat(exists(WAIT_LIST)).as("nothing ever went to the LIST").isFalse();
        assertThat(members(PENDING)).as("back at its own place").containsExactly(first, second, delayed, doomed);
        assertThat(seedClaimAllQuietly()).containsExactly(first, second, delayed, doomed);
    }

    @Test
    void aClaimsOwnPromotionPutsPriorityZeroInTheZset() {
        queue.setLayout(QueueLayout.ZSET);
        String delayed = queue.enqueue("delayed".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withDelay(Duration.ofMillis(50))).id();
        String first = queue.enqueue("first");
        awaitServerTimePast(score(DELAYED, delayed));

        assertThat(queue.claim(LONG_LEASE).orElseThrow().id()).as("promoted behind the older job").isEqualTo(first);
        assertThat(exists(WAIT_LIST)).isFalse();
        assertThat(members(PENDING)).containsExactly(delayed);
    }

    private List<String> seedClaimAllQuietly() {
        try {
            return seedClaimAll(seedClaim());
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aSwitchToZsetMovesTheWaitingJobsAtomicallyAndKeepsTheClaimOrder() {
        raw().call("HSET", jobKey("1"), "payload", "legacy");   // a priority-0 entry an older version left
        raw().call("ZADD", PENDING, "1", "1");
        raw().call("SET", P + "seq", "1");
        fillMixed();
        Job held = queue.claim(LONG_LEASE).orElseThrow();   // three-1, active through the switch
        List<String> before = pendingIds();
        assertThat(waiting()).hasSize(4);

        LayoutChange c = queue.setLayout(QueueLayout.ZSET);

        assertThat(c).isEqualTo(new LayoutChange(QueueLayout.ZSET, true, 4));
        assertThat(queue.layout()).isEqualTo(QueueLayout.ZSET);
        assertThat(get(P + "layout")).isEqualTo("zset");
        assertThat(exists(WAIT_LIST)).isFalse();
        assertThat(members(PENDING)).as("the claim order, unchanged").containsExactlyElementsOf(before);
        String later = queue.enqueue("later");
        assertThat(queue.setLayout(QueueLayout.ZSET)).as("already so").isEqualTo(new LayoutChange(QueueLayout.ZSET,
                false, 0));
        assertThat(held.complete()).isEqualTo(SettleOutcome.COMPLETED);
        List<String> expected = new ArrayList<>(before);
        expected.add(expected.size() - 1, later);   // behind band 0, ahead of priority -1
        assertThat(seedClaimAllQuietly()).containsExactlyElementsOf(expected);
    }

    @Test
    void aSwitchBackToListMovesNothingAndClaimsTheOlderZsetJobsFirst() {
        queue.setLayout(QueueLayout.ZSET);
        String old1 = queue.enqueue("old-1");
        String old2 = queue.enqueue("old-2");

        assertThat(queue.setLayout(QueueLayout.LIST)).isEqualTo(new LayoutChange(QueueLayout.LIST, true, 0));
        assertThat(queue.setLayout(QueueLayout.LIST)).isEqualTo(new LayoutChange(QueueLayout.LIST, false, 0));
        assertThat(exists(P + "layout")).isFalse();
        String fresh = queue.enqueue("fresh");

        assertThat(waiting()).containsExactly(fresh);
        assertThat(members(PENDING)).containsExactly(old1, old2);
        assertThat(claimAllIds()).containsExactly(old1, old2, fresh);
    }

    @Test
    void everyClientFollowsTheStoredLayout() {
        QueueClient other = client(b -> { });
        other.queue("q").setLayout(QueueLayout.ZSET);

        assertThat(queue.layout()).as("read through another client's handle").isEqualTo(QueueLayout.ZSET);
        String id = queue.enqueue("x");
        assertThat(members(PENDING)).containsExactly(id);
        assertThat(score(PENDING, id)).as("seq - 0 * 2^42").isEqualTo(Long.parseLong(id));
    }

    @Test
    void theLayoutKeySharesTheQueuesHashTagAndAForeignTypeIsRefusedUnchanged() {
        QueueKeys k = QueueKeys.of("q");
        assertThat(k.layout()).isEqualTo(k.prefix() + "layout").startsWith("emq:{q}:");
        assertThat(Scripts.LAYOUT.label()).isEqualTo("EVALSHA layout-4");

        raw().call("HSET", P + "layout", "x", "1");
        assertThatThrownBy(() -> queue.enqueue("x")).isInstanceOf(RedisCommandException.class)
                .hasMessageContaining("WRONGTYPE emq:{q}:layout holds a hash, not a string");
        assertThatThrownBy(() -> queue.setLayout(QueueLayout.ZSET)).isInstanceOf(RedisCommandException.class)
                .hasMessageContaining("WRONGTYPE");
        assertThat(exists(P + "seq") || exists(jobKey("1")) || exists(PENDING) || exists(WAIT_LIST))
                .as("nothing written").isFalse();
        assertThatThrownBy(() -> queue.layout()).isInstanceOf(RedisCommandException.class)
                .hasMessageContaining("WRONGTYPE");
    }

    @Test
    void badInputIsRefusedBeforeRedis() {
        assertThatThrownBy(() -> queue.setLayout(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> QueueLayout.parse("seed")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("list or zset");
        assertThat(QueueLayout.parse("ZSet")).isEqualTo(QueueLayout.ZSET);
        assertThat(exists(P + "layout")).isFalse();
    }

    @Test
    void aShardedQueueSetsEveryPartition() {
        ShardedQueue sharded = client.shardedQueue("s", 3);
        assertThat(sharded.layout()).isEqualTo(QueueLayout.LIST);
        sharded.enqueueAll(List.of(JobRequest.of("a"), JobRequest.of("b"), JobRequest.of("c")));

        LayoutChange c = sharded.setLayout(QueueLayout.ZSET);

        assertThat(c).isEqualTo(new LayoutChange(QueueLayout.ZSET, true, 3));
        assertThat(sharded.layout()).isEqualTo(QueueLayout.ZSET);
        sharded.enqueueAll(List.of(JobRequest.of("d"), JobRequest.of("e"), JobRequest.of("f")));
        for (int i = 0; i < 3; i++) {
            String p = "emq:{s#" + i + "}:";
            assertThat(get(p + "layout")).isEqualTo("zset");
            assertThat(raw().call("EXISTS", p + "wait")).isEqualTo(0L);
            assertThat(raw().call("ZCARD", p + "pending")).isEqualTo(2L);
        }
        raw().call("DEL", "emq:{s#1}:layout");
        assertThat(sharded.layout()).as("ZSET only when every partition is").isEqualTo(QueueLayout.LIST);
    }
}
