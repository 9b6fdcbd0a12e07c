package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The one contract of both queues: code that holds a {@link QueueOperations} serves a plain and a
 * sharded queue alike, asking it {@code isSharded()}, {@code partitions()} and
 * {@code partitionStats()} instead of its type, and enqueueing by partition key to either.
 */
@Timeout(60)
class QueueOperationsContractTest extends QueueTestBase {
    private static final byte[] PAYLOAD = "x".getBytes(StandardCharsets.UTF_8);

    @Test
    void theContractIsSealedToTheTwoQueuesAndHoldsNoImplementation() {
        assertThat(QueueOperations.class.isSealed()).isTrue();
        assertThat(QueueOperations.class.getPermittedSubclasses()).containsExactlyInAnyOrder(Queue.class,
                ShardedQueue.class);
        assertThat(Arrays.stream(QueueOperations.class.getDeclaredMethods()).filter(Method::isDefault)
                .map(Method::getName)).as("default methods").isEmpty();
        assertThat(Arrays.stream(QueueOperations.class.getDeclaredMethods())
                .filter(m -> Modifier.isStatic(m.getModifiers())).map(Method::getName)).as("static methods").isEmpty();
    }

    @Test
    void aPlainQueueIsOnePartitionWhichEveryPartitionKeyNames() {
        QueueOperations q = client.open("plain");
        assertThat(q.isSharded()).isFalse();
        assertThat(q.partitions()).isEqualTo(1);

        EnqueueResult keyed = q.enqueue("customer-42", PAYLOAD, EnqueueOptions.defaults());
        List<EnqueueResult> bulk = q.enqueueAll("customer-7", List.of(JobRequest.of("a", EnqueueOptions.defaults()), JobRequest.of("b", EnqueueOptions.defaults())));
        assertThat(keyed.id()).as("a plain queue's id names no partition").matches("[0-9]+");
        assertThat(bulk).extracting(EnqueueResult::id).allMatch(id -> id.matches("[0-9]+"));

        QueueStats total = q.stats();
        assertThat(total.pending()).isEqualTo(3);
        assertThat(q.partitionStats()).containsExactly(total);
        assertThat(q.claim(3, Queue.MAX_LEASE)).extracting(Job::id)
                .as("one partition: enqueue order").containsExactly(keyed.id(), bulk.get(0).id(), bulk.get(1).id());
    }

    @Test
    void aBadPartitionKeyIsRefusedBeforeAnythingIsWrittenOnEitherKind() {
        client.shardedQueue("sharded", 3);
        for (QueueOperations q : List.of(client.open("plain"), client.open("sharded"))) {
            assertThatThrownBy(() -> q.enqueue(null, PAYLOAD, EnqueueOptions.defaults()))
                    .as(q.name()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition key");
            assertThatThrownBy(() -> q.enqueueAll("", List.of(JobRequest.of("a", EnqueueOptions.defaults()))))
                    .as(q.name()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition key");
            assertThat(q.stats().pending()).as(q.name()).isZero();
        }
    }

    @Test
    void aShardedQueueAnswersTheSameCallsPerPartition() {
        client.shardedQueue("orders", 3);
        QueueOperations q = client.open("orders");
        assertThat(q.isSharded()).isTrue();
        assertThat(q.partitions()).isEqualTo(3);

        String key = ShardedQueueTest.keyFor(2, 3, "customer-");
        EnqueueResult keyed = q.enqueue(key, PAYLOAD, EnqueueOptions.defaults());
        List<EnqueueResult> bulk = q.enqueueAll(key, List.of(JobRequest.of("a", EnqueueOptions.defaults()), JobRequest.of("b", EnqueueOptions.defaults())));
        assertThat(keyed.id()).startsWith("2-");
        assertThat(bulk).extracting(EnqueueResult::id).allMatch(id -> id.startsWith("2-"));
        q.enqueue("spread");

        List<QueueStats> each = q.partitionStats();
        assertThat(each).hasSize(3);
        assertThat(each.get(2).pending()).isGreaterThanOrEqualTo(3);
        assertThat(each.stream().mapToLong(QueueStats::pending).sum()).isEqualTo(q.stats().pending()).isEqualTo(4);
    }

    @Test
    void settingsTakenBeforeAPartitionIsAddedReachItAfterARefresh() {
        ShardedQueue orders = client.shardedQueue("orders", 2);
        FlowControl flow = orders.flowControl();
        client(b -> { }).shardedQueue("orders", 3);   // another client raises the mark
        assertThat(orders.refresh()).isEqualTo(3);

        flow.setConcurrencyCap(5);
        for (int p = 0; p < 3; p++) {
            Object cap = raw().call("HGET", "emq:{orders#" + p + "}:flow", FlowControl.CAP);
            assertThat(cap instanceof byte[] b ? new String(b, StandardCharsets.US_ASCII) : cap)
                    .as("partition %d", p).isEqualTo("5");
        }
    }
}
