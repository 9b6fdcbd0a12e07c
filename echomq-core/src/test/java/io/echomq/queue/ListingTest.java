package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Listing by state: each state's documented order, paging, and the cursor's guarantee while the
 * queue changes between pages (a job that stays in the state and keeps its place is listed exactly
 * once), for the pending walk over the ZSET and the wait LIST as for the plain sorted sets.
 */
@Timeout(60)
class ListingTest extends SemanticsTestBase {

    private String enqueue(String payload, int priority) {
        return queue.enqueue(payload.getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withPriority(priority)).id();
    }

    /** Walks every page of {@code state}, calling {@code between} after each page; returns the ids in order. */
    private List<String> walk(JobState state, int limit, Consumer<JobPage> between) {
        List<String> ids = new ArrayList<>();
        String cursor = null;
        for (int pages = 0; pages < 100_000; pages++) {
            JobPage page = queue.list(state, limit, cursor);
            assertThat(page.jobs().size()).isLessThanOrEqualTo(limit);
            page.jobs().forEach(j -> ids.add(j.id()));
            if (page.next().isEmpty()) {
                return ids;
            }
            cursor = page.next().get();
            between.accept(page);
        }
        throw new AssertionError("the walk did not end");
    }

    @Test
    void pendingIsListedInClaimOrderAcrossTheZsetAndTheWaitList() {
        for (int i = 0; i < 12; i++) {
            enqueue("p" + i, new int[] {0, 5, -3, 0, 9, 0}[i % 6]);
        }
        raw().call("HSET", jobKey("old"), "payload", "left by an older version");
        raw().call("ZADD", PENDING, "0", "old");          // a priority-0 entry in the ZSET: before the LIST
        List<String> expected = pendingIds();
        for (int limit : new int[] {1, 2, 5, 100}) {
            assertThat(walk(JobState.PENDING, limit, p -> { })).as("limit " + limit).isEqualTo(expected);
        }
        List<String> claimed = new ArrayList<>();
        queue.claim(100, LONG_LEASE).forEach(j -> claimed.add(j.id()));
        assertThat(claimed).as("the listing is the order claims take").isEqualTo(expected);
    }

    @Test
    void pagesCarryTheFieldsOfEachJob() {
        String a = enqueue("a", 7);
        String b = enqueue("b", 0);
        JobPage page = queue.list(JobState.PENDING, 10, null);
        assertThat(page.next()).isEmpty();
        assertThat(page.jobs()).extracting(JobSummary::id).containsExactly(a, b);
        JobSummary first = page.jobs().get(0);
        assertThat(first.priority()).isEqualTo(7);
        assertThat(first.score().getAsLong()).isEqualTo(Long.parseLong(a) - 7 * BAND);
        assertThat(page.jobs().get(1).score()).as("a LIST entry has no score").isEmpty();
        Job job = queue.claim(Duration.ofSeconds(20)).orElseThrow();
        JobSummary active = queue.list(JobState.ACTIVE, 10, null).jobs().get(0);
        assertThat(active.id()).isEqualTo(job.id());
        assertThat(active.attempts()).isEqualTo(1);
        assertThat(active.score().getAsLong()).isEqualTo(score(ACTIVE, job.id()));
        assertThat(active.claimedAt()).isPresent();
    }

    @Test
    void activeDelayedDeadAndDoneFollowTheirScores() {
        for (int i = 0; i < 6; i++) {
            enqueue("j" + i, 0);
        }
        List<Job> jobs = queue.claim(6, Duration.ofSeconds(60));
        // leases that end in the reverse of claim order: the listing follows the deadlines
        for (int i = 0; i < jobs.size(); i++) {
            assertThat(jobs.get(i).extend(Duration.ofSeconds(60 - i * 5L))).isTrue();
        }
        assertThat(walk(JobState.ACTIVE, 2, p -> { })).isEqualTo(members(ACTIVE));
        assertThat(members(ACTIVE).get(0)).isEqualTo(jobs.get(5).id());

        for (int i = 0; i < 5; i++) {
            queue.enqueue(("d" + i).getBytes(StandardCharsets.UTF_8),
                    EnqueueOptions.defaults().withDelay(Duration.ofMinutes(10 - i)));
        }
        assertThat(walk(JobState.DELAYED, 2, p -> { })).isEqualTo(members(DELAYED)).hasSize(5);

        List<String> deaths = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            jobs.get(i).failWithoutRetry("no");
            deaths.add(jobs.get(i).id());
        }
        assertThat(walk(JobState.DEAD, 2, p -> { })).isEqualTo(members(DEAD)).containsExactlyInAnyOrderElementsOf(deaths);

        assertThat(walk(JobState.DONE, 2, p -> { })).as("no done index before settings are stored").isEmpty();
        queue.setRetention(QueueRetention.defaults());   // a queue with stored settings keeps the done index
        List<String> completions = new ArrayList<>();
        for (int i = 5; i >= 3; i--) {
            assertThat(jobs.get(i).complete()).isEqualTo(SettleOutcome.COMPLETED);
            completions.add(jobs.get(i).id());
        }
        assertThat(walk(JobState.DONE, 2, p -> { })).isEqualTo(members(P + "done")).hasSize(3)
                .containsExactlyInAnyOrderElementsOf(completions);
    }

    @Test
    void ties_inAScoreAreWalkedByIdEvenWhenTheCursorEntryLeaves() {
        for (String id : List.of("a", "b", "c", "d", "e")) {
            raw().call("HSET", jobKey(id), "payload", "x", "state", "dead");
            raw().call("ZADD", DEAD, "1000", id);
        }
        JobPage first = queue.list(JobState.DEAD, 2, null);
        assertThat(first.jobs()).extracting(JobSummary::id).containsExactly("a", "b");
        raw().call("ZREM", DEAD, "b");                      // the cursor's entry leaves
        JobPage second = queue.list(JobState.DEAD, 2, first.next().orElseThrow());
        assertThat(second.jobs()).extracting(JobSummary::id).containsExactly("c", "d");
    }

    /**
     * Between every two pages the queue changes in every way a pending job can: new jobs in each
     * band, claims (which take the heads, LIST items included), returns (to the LIST's front),
     * and the remove of the entry the cursor stands on. The jobs that stay pending throughout
     * (the stable ones) must each be listed exactly once, in claim order.
     */
    @Test
    void pagingUnderEnqueueClaimReturnAndRemoveListsEveryStableJobOnce() {
        List<String> initial = new ArrayList<>();
        int[] bands = {0, 0, 0, 4, -2, 0, 9, 0};
        for (int i = 0; i < 240; i++) {
            initial.add(enqueue("s" + i, bands[i % bands.length]));
        }
        List<String> order = pendingIds();
        Set<String> unstable = new HashSet<>();
        int[] round = {0};
        List<String> listed = walk(JobState.PENDING, 7, page -> {
            int r = round[0]++;
            unstable.add(enqueue("new-a" + r, 0));
            unstable.add(enqueue("new-b" + r, 3));
            unstable.add(enqueue("new-c" + r, -1));
            List<Job> took = queue.claim(2, LONG_LEASE);
            took.forEach(j -> unstable.add(j.id()));
            if (r % 3 == 0 && !took.isEmpty()) {
                took.get(0).returnLease();                    // back to the LIST's front, or its old score
            }
            JobSummary last = page.jobs().get(page.jobs().size() - 1);
            if (r % 4 == 1 && last.score().isEmpty()) {
                assertThat(queue.remove(last.id(), false)).isEqualTo(RemoveOutcome.REMOVED);
                unstable.add(last.id());                      // the cursor's own entry is gone: prev leads on
            }
        });
        Map<String, Integer> seen = new HashMap<>();
        listed.forEach(id -> seen.merge(id, 1, Integer::sum));
        List<String> stable = order.stream().filter(id -> !unstable.contains(id)).toList();
        assertThat(stable).hasSizeGreaterThan(100);
        for (String id : stable) {
            assertThat(seen.get(id)).as("stable job " + id + " listed once").isEqualTo(1);
        }
        assertThat(listed.stream().filter(stable::contains).toList()).as("stable jobs in claim order").isEqualTo(stable);
        assertThat(initial).containsAll(stable);
    }

    @Test
    void aSortedSetWalkUnderChangeListsEveryStableJobOnce() {
        for (int i = 0; i < 150; i++) {
            queue.enqueue(("d" + i).getBytes(StandardCharsets.UTF_8),
                    EnqueueOptions.defaults().withDelay(Duration.ofMinutes(5 + (i * 7) % 50)));
        }
        List<String> order = members(DELAYED);
        Set<String> unstable = new HashSet<>();
        int[] round = {0};
        List<String> listed = walk(JobState.DELAYED, 9, page -> {
            int r = round[0]++;
            unstable.add(queue.enqueue(("n" + r).getBytes(StandardCharsets.UTF_8),
                    EnqueueOptions.defaults().withDelay(Duration.ofMinutes(1 + r % 60))).id());
            String gone = page.jobs().get(page.jobs().size() - 1).id();
            if (r % 2 == 0) {
                queue.remove(gone, false);                    // the cursor's own entry leaves
                unstable.add(gone);
            }
        });
        List<String> stable = order.stream().filter(id -> !unstable.contains(id)).toList();
        assertThat(listed.stream().filter(stable::contains).toList()).isEqualTo(stable);
        assertThat(listed.stream().filter(stable::contains).distinct().count()).isEqualTo(stable.size());
    }

    @Test
    void anEmptyStateHasOneEmptyLastPage() {
        for (JobState s : JobState.values()) {
            JobPage page = queue.list(s, 10, null);
            assertThat(page.jobs()).as(s.wireName()).isEmpty();
            assertThat(page.next()).isEmpty();
        }
    }

    @Test
    void aShardedQueueListsItsPartitionsOneAfterTheOther() {
        ShardedQueue sq = client.shardedQueue("orders", 3);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            sq.enqueue(("o" + i).getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withPriority(i % 3 - 1));
        }
        for (int p = 0; p < 3; p++) {
            Partition part = sq.span().get(p);
            String prefix = p + "-";
            part.list(JobState.PENDING, 100, null).jobs().forEach(j -> expected.add(j.id()));
            assertThat(part.list(JobState.PENDING, 100, null).jobs()).allMatch(j -> j.id().startsWith(prefix));
        }
        assertThat(expected).hasSize(20);
        for (int limit : new int[] {1, 3, 7, 20, 50}) {
            List<String> ids = new ArrayList<>();
            String cursor = null;
            do {
                JobPage page = sq.list(JobState.PENDING, limit, cursor);
                page.jobs().forEach(j -> ids.add(j.id()));
                cursor = page.next().orElse(null);
            } while (cursor != null);
            assertThat(ids).as("limit " + limit).isEqualTo(expected);
        }
        List<String> claimedFromPartition0 = new ArrayList<>();
        sq.span().get(0).claim(100, LONG_LEASE).forEach(j -> claimedFromPartition0.add(j.id()));
        assertThat(expected.subList(0, claimedFromPartition0.size()))
                .as("within a partition, claim order").isEqualTo(claimedFromPartition0);
    }
}
