package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code emq queue enqueue --group} and {@code emq queue groups} against a real server. */
@Timeout(120)
class QueueGroupsCliTest extends QueueCliTestBase {

    @Test
    void groupsAreEnqueuedListedPausedResumedAndTheirKSet() {
        assertThat(emq("queue", "enqueue", "q", "a", "--group", "customer-7").code()).isZero();
        assertThat(emq("queue", "enqueue", "q", "b", "--group", "customer-7").code()).isZero();
        assertThat(emq("queue", "enqueue", "q", "c", "--group", "customer-8").code()).isZero();
        assertThat(emq("queue", "groups", "q", "max")).isEqualTo(new EmqRun(0, "group_max=1\n", ""));
        assertThat(emq("queue", "groups", "q", "max", "2")).isEqualTo(new EmqRun(0, "group_max=2\n", ""));
        assertThat(client.queue("q").groups().max()).isEqualTo(2);
        assertThat(emq("queue", "groups", "q", "pause", "customer-8")).isEqualTo(new EmqRun(0, "PAUSED\n", ""));
        assertThat(emq("queue", "groups", "q", "pause", "customer-8")).isEqualTo(new EmqRun(0, "ALREADY_PAUSED\n", ""));
        EmqRun list = emq("queue", "groups", "q");
        assertThat(list.code()).isZero();
        assertThat(list.out().lines()).containsExactlyInAnyOrder(
                "customer-7 waiting=2 active=0 paused=no", "customer-8 waiting=1 active=0 paused=yes");
        assertThat(emq("queue", "stats", "q").out()).startsWith("pending=3 ");
        assertThat(emq("queue", "groups", "q", "resume", "customer-8")).isEqualTo(new EmqRun(0, "RESUMED\n", ""));
        assertThat(emq("queue", "groups", "q", "resume", "customer-8")).isEqualTo(new EmqRun(0, "NOT_PAUSED\n", ""));
    }

    @Test
    void badGroupsAndLimitsExit2WithNothingWritten() {
        for (String[] args : new String[][] {
            {"queue", "groups", "q", "max", "0"},
            {"queue", "groups", "q", "max", "-1"},
            {"queue", "groups", "q", "max", "x"},
            {"queue", "groups", "q", "pause", "a:b"},
            {"queue", "groups", "q", "pause"},
            {"queue", "groups", "q", "resume", "{q}"},
            {"queue", "groups", "q", "shuffle"},
            {"queue", "groups", "q", "list", "--limit", "0"},
            {"queue", "groups", "q", "list", "--cursor", "junk"},
            {"queue", "enqueue", "q", "x", "--group", "a b"},
            {"queue", "enqueue", "q", "x", "--group", ""},
        }) {
            EmqRun run = emq(args);
            assertThat(run.code()).as("%s: %s", String.join(" ", args), run.err()).isEqualTo(2);
        }
        assertThat(emq("queue", "groups", "q", "max", "0").err()).contains("0 is outside 1..");
        assertThat(emq("queue", "enqueue", "q", "x", "--group", "a:b").err()).contains("a group key is 1..128");
        assertThat(REDIS.raw().call("DBSIZE")).isEqualTo(0L);
    }
}
