package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fair groups, step by step on one queue: the rotation's order, k, pause and resume, the settles
 * that free a group's place and the counts (includes/groups.lua, {@link FairGroups}).
 */
@Timeout(60)
class GroupsTest extends SemanticsTestBase {

    private String enqueue(String payload, String group) {
        return queue.enqueue(payload.getBytes(), EnqueueOptions.defaults().withGroup(group)).id();
    }

    /** Claims one job at a time and completes it at once; the payloads in claim order. */
    private List<String> drainOneByOne() {
        List<String> order = new ArrayList<>();
        for (Optional<Job> j = queue.claim(LONG_LEASE); j.isPresent(); j = queue.claim(LONG_LEASE)) {
            order.add(j.get().payloadUtf8());
            assertThat(j.get().complete()).isEqualTo(SettleOutcome.COMPLETED);
        }
        return order;
    }

    @Test
    void claimsTakeTheGroupsInTurnAndEachGroupOldestFirst() {
        enqueue("a1", "a");
        enqueue("a2", "a");
        enqueue("a3", "a");
        enqueue("b1", "b");
        enqueue("c1", "c");
        enqueue("c2", "c");
        assertThat(field("1", "group")).isEqualTo("a");
        assertThat(members(PENDING)).isEmpty();
        assertThat(queue.stats().pending()).as("grouped jobs count as pending").isEqualTo(6);

        assertThat(drainOneByOne()).containsExactly("a1", "b1", "c1", "a2", "c2", "a3");
        assertThat(queue.stats().pending()).isZero();
        assertThat((Long) raw().call("EXISTS", P + "groups", P + "group:active", P + "group:waiting"))
                .as("an idle queue keeps no group bookkeeping").isZero();
    }

    @Test
    void ungroupedJobsTakeOneTurnPerRoundAsOneMoreGroup() {
        // the ungrouped jobs join the rotation at its back when a claim first finds them waiting
        enqueue("a1", "a");
        enqueue("a2", "a");
        queue.enqueue("u1");
        queue.enqueue("u2");
        queue.enqueue("u3");
        enqueue("b1", "b");
        enqueue("b2", "b");
        assertThat(drainOneByOne()).containsExactly("a1", "b1", "u1", "a2", "b2", "u2", "u3");
    }

    @Test
    void aGroupRunsAtMostKAtOnce() {
        FairGroups groups = queue.groups();
        assertThat(groups.max()).isEqualTo(1);
        for (int i = 0; i < 5; i++) {
            enqueue("a" + i, "a");
        }
        enqueue("b0", "b");
        List<Job> first = queue.claim(10, LONG_LEASE);
        assertThat(first).extracting(Job::payloadUtf8).containsExactly("a0", "b0");
        assertThat(queue.claim(10, LONG_LEASE)).as("a is full at k = 1").isEmpty();
        assertThat(groups.count("a")).isEqualTo(new GroupCount("a", 4, 1, false));

        groups.setMax(2);
        assertThat(groups.max()).isEqualTo(2);
        assertThat(first.get(0).complete()).isEqualTo(SettleOutcome.COMPLETED);
        List<Job> second = queue.claim(10, LONG_LEASE);
        assertThat(second).extracting(Job::payloadUtf8).containsExactly("a1", "a2");
        assertThat(queue.claim(10, LONG_LEASE)).as("a is full at k = 2").isEmpty();
        assertThat(groups.count("a")).isEqualTo(new GroupCount("a", 2, 2, false));
    }

    @Test
    void aPausedGroupIsNotServedUntilResumed() {
        FairGroups groups = queue.groups();
        enqueue("a1", "a");
        enqueue("b1", "b");
        assertThat(groups.pause("a")).isTrue();
        assertThat(groups.pause("a")).isFalse();
        enqueue("a2", "a");
        assertThat(groups.count("a")).isEqualTo(new GroupCount("a", 2, 0, true));
        assertThat(drainOneByOne()).containsExactly("b1");
        assertThat(groups.resume("a")).isTrue();
        assertThat(groups.resume("a")).isFalse();
        assertThat(drainOneByOne()).containsExactly("a1", "a2");
    }

    @Test
    void everySettleFreesTheGroupsPlace() {
        enqueue("a1", "a");
        enqueue("a2", "a");
        Job j = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(j.returnLease()).isEqualTo(SettleOutcome.RETURNED);
        j = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(j.payloadUtf8()).as("a returned job goes to the front of its group").isEqualTo("a1");
        assertThat(queue.cancel(j.id())).isEqualTo(CancelOutcome.SIGNALLED);
        j = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(j.payloadUtf8()).isEqualTo("a2");
        assertThat(j.failWithoutRetry("no")).isEqualTo(SettleOutcome.DEAD);
        assertThat(queue.redrive(10)).isEqualTo(1);
        j = queue.claim(Duration.ofMillis(50)).orElseThrow();
        assertThat(j.payloadUtf8()).as("a redriven job goes back to its group").isEqualTo("a2");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> queue.reap(10).returned() == 1);
        j = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(j.payloadUtf8()).as("a reaped job goes back to its group").isEqualTo("a2");
        assertThat(queue.remove(j.id(), true)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(queue.groups().count("a")).isEqualTo(new GroupCount("a", 0, 0, false));
    }

    @Test
    void aRetriedJobGoesBackToItsGroupWhenDue() {
        queue.enqueue("a1".getBytes(), EnqueueOptions.defaults().withGroup("a")
                .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1)));
        Job j = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(j.fail("again")).isEqualTo(SettleOutcome.RETRYING);
        assertThat(queue.groups().count("a")).isEqualTo(new GroupCount("a", 0, 0, false));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> queue.promote(10) == 1);
        assertThat(queue.groups().count("a").waiting()).isEqualTo(1);
        assertThat(queue.claim(LONG_LEASE).orElseThrow().attempt()).isEqualTo(2);
    }

    @Test
    void aCancelledOrRemovedPendingJobLeavesItsGroup() {
        String a1 = enqueue("a1", "a");
        String a2 = enqueue("a2", "a");
        enqueue("a3", "a");
        assertThat(queue.cancel(a1)).isEqualTo(CancelOutcome.CANCELLED);
        assertThat(queue.remove(a2, false)).isEqualTo(RemoveOutcome.REMOVED);
        assertThat(queue.stats().pending()).isEqualTo(1);
        assertThat(drainOneByOne()).containsExactly("a3");
    }

    @Test
    void deletingTheQueueDeletesItsGroupsToo() {
        enqueue("a1", "a");
        enqueue("a2", "a");
        enqueue("b1", "b");
        queue.groups().setMax(2);
        queue.groups().pause("b");
        queue.claim(LONG_LEASE).orElseThrow();
        assertThat(queue.delete(true, n -> { }).deleted()).isTrue();
        assertThat((Long) raw().call("DBSIZE")).as("no key of the queue is left").isZero();
    }

    @Test
    void groupsAreListedAPageAtATime() {
        for (int i = 0; i < 30; i++) {
            enqueue("x", "g" + i);
        }
        queue.groups().pause("idle");
        queue.claim(5, LONG_LEASE);
        List<GroupCount> seen = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            GroupPage page = queue.groups().list(cursor, 10);
            seen.addAll(page.groups());
            cursor = page.next();
            pages++;
        } while (cursor != null);
        assertThat(pages).isGreaterThanOrEqualTo(3);
        assertThat(seen).hasSize(31);
        assertThat(seen).filteredOn(c -> c.active() == 1).hasSize(5);
        assertThat(seen).filteredOn(c -> c.waiting() == 1).hasSize(25);
        assertThat(seen).filteredOn(GroupCount::paused).extracting(GroupCount::group).containsExactly("idle");
    }

    @Test
    void aShardedQueueKeepsGroupsPerPartitionAndSetsEveryPartition() {
        ShardedQueue sharded = client.shardedQueue("s", 3);
        sharded.groups().setMax(2);
        for (int i = 0; i < 3; i++) {
            assertThat(String.valueOf(raw().call("HGET", "emq:{s#" + i + "}:flow", "group_max"))).isEqualTo("2");
        }
        for (int i = 0; i < 6; i++) {
            sharded.enqueue("t", "x".getBytes(), EnqueueOptions.defaults().withGroup("t"));
        }
        assertThat(sharded.groups().count("t")).isEqualTo(new GroupCount("t", 6, 0, false));
        assertThat(sharded.claim(10, LONG_LEASE)).as("one partition, k = 2").hasSize(2);
        assertThat(sharded.groups().pause("t")).isTrue();
        assertThat(sharded.groups().count("t")).isEqualTo(new GroupCount("t", 4, 2, true));
        List<GroupCount> listed = new ArrayList<>();
        for (String c = null; ; ) {
            GroupPage page = sharded.groups().list(c, 100);
            listed.addAll(page.groups());
            if (page.next() == null) {
                break;
            }
            c = page.next();
        }
        assertThat(listed).as("listed in its partition, and paused (no jobs) in the two others")
                .containsExactlyInAnyOrder(new GroupCount("t", 4, 2, true), new GroupCount("t", 0, 0, true),
                        new GroupCount("t", 0, 0, true));
    }

    @Test
    void theEnqueueScriptRefusesABadGroupKeyFromAnotherClientBeforeAnyWrite() {
        String source = io.echomq.internal.Scripts.ENQUEUE.body();
        // one job, ten values, publish mode, no extra fields, then its group key
        Object reply = null;
        try {
            reply = raw().call("EVAL", source, "5", PENDING, DELAYED, P + "seq", P + "wake", WAIT_LIST, P, "1",
                    "x", "0", "0", "0", "0", "0", "0", "", "0", "0", "PUBLISH", "0", "a:b");
        } catch (RuntimeException e) {
            assertThat(e).hasMessageContaining("a group key is 1..128");
        }
        assertThat(reply).as("refused").isNull();
        assertThat((Long) raw().call("DBSIZE")).as("nothing was written").isZero();
    }

    @Test
    void badGroupKeysAndLimitsAreRefusedBeforeRedis() {
        EnqueueOptions o = EnqueueOptions.defaults();
        for (String bad : new String[] {"", "a:b", "{q}", "a b", "*", "a?", "tab\t", "é", "x".repeat(129)}) {
            assertThatThrownBy(() -> o.withGroup(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("group key");
        }
        assertThatThrownBy(() -> o.withGroup(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(o.withGroup("x".repeat(128)).group()).contains("x".repeat(128));
        assertThat(o.withGroup("tenant-7/eu.west@a+b=c#1_2").group()).isPresent();
        FairGroups groups = queue.groups();
        assertThatThrownBy(() -> groups.setMax(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> groups.setMax(-3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> groups.pause("a:b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> groups.list("junk", 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> groups.list(null, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat((Long) raw().call("DBSIZE")).as("nothing was written").isZero();
    }
}
