package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.Wire;
import io.echomq.server.CommandTap;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input to the listing, retention and delete calls is refused with an
 * {@link IllegalArgumentException} that names it, before anything reaches Redis (MONITOR proves it).
 */
@org.junit.jupiter.api.Tag("standalone-only")   // reads MONITOR of one server (docs/scaling.md)
@Timeout(60)
class ListingInputTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private static QueueClient client;
    private static CommandTap tap;

    @BeforeAll
    static void open() {
        client = QueueClient.create(REDIS.url());
        tap = REDIS.raw().monitor();
    }

    @AfterAll
    static void close() {
        tap.close();
        client.close();
    }

    private static void refused(Runnable call, String message) {
        Wire.Sent sent = (Wire.Sent) org.assertj.core.api.Assertions.catchThrowable(
                () -> Wire.during(REDIS.raw(), tap, call));
        assertThat(sent).as("the call must throw").isNotNull();
        assertThat(sent.getCause()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
        assertThat(sent.commands()).as("nothing reaches Redis").isEmpty();
    }

    @Test
    void unknownStatesAreRefused() {
        assertThatThrownBy(() -> JobState.parse("running")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown job state 'running'");
        assertThatThrownBy(() -> JobState.parse(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(JobState.parse("done")).isEqualTo(JobState.DONE);
        Queue q = client.queue("in");
        refused(() -> q.list(null, 10, null), "state");
    }

    @Test
    void limitsOutsideTheRangeAreRefused() {
        Queue q = client.queue("in");
        ShardedQueue sq = client.shardedQueue("sin", 2);
        for (int bad : new int[] {0, -1, Queue.MAX_BATCH + 1, Integer.MIN_VALUE}) {
            refused(() -> q.list(JobState.PENDING, bad, null), "limit");
            refused(() -> sq.list(JobState.DEAD, bad, null), "limit");
        }
    }

    @Test
    void malformedCursorsAreRefused() {
        Queue q = client.queue("in");
        for (String bad : List.of("", "x", "z", "z,1", "z,abc,YQ", "z,1,", "z,1,YQ,extra", "l,,", "l,*,YQ",
                "z,1,YQ=", "q,1,YQ", "0,s")) {
            refused(() -> q.list(JobState.PENDING, 10, bad), "cursor");
        }
        refused(() -> q.list(JobState.DEAD, 10, "l,YQ,"), "belongs to a listing of pending jobs");
        ShardedQueue sq = client.shardedQueue("sin", 2);
        for (String bad : List.of("z,1,YQ", "s", "2,s", "-1,s", "0,z,abc,YQ", "0,")) {
            refused(() -> sq.list(JobState.PENDING, 10, bad), "cursor");
        }
    }

    @Test
    void retentionOutsideItsRangesIsRefused() {
        QueueRetention d = QueueRetention.defaults();
        assertThatThrownBy(() -> d.withDoneMax(-1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("doneMax");
        assertThatThrownBy(() -> d.withDeadMax(QueueRetention.MAX_COUNT + 1)).hasMessageContaining("deadMax");
        assertThatThrownBy(() -> d.withDeadAge(Duration.ofMillis(-1))).hasMessageContaining("deadAge");
        assertThatThrownBy(() -> d.withDoneAge(Duration.ofDays(3651))).hasMessageContaining("doneAge");
        assertThatThrownBy(() -> d.withDoneAge(Duration.ofNanos(1500))).hasMessageContaining("whole milliseconds");
        assertThatThrownBy(() -> d.withDoneAge(null)).isInstanceOf(IllegalArgumentException.class);
        Queue q = client.queue("in");
        refused(() -> q.setRetention(null), "retention");
        refused(() -> q.delete(false, null), "progress");
    }
}
