package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.audit.AuditEntry;
import io.echomq.audit.AuditTarget;
import io.echomq.audit.AuditTrail;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every command that changes a queue or a lock leaves a record in the server's audit trail, with who ran it, and
 * {@code emq audit} reads the trail back; a refusal, a dry run or a change of nothing leaves none.
 */
class AuditCliTest extends QueueCliTestBase {
    private static final String WHO = "emq " + System.getProperty("user.name") + "@";

    /** Puts {@code n} jobs of {@code queue} in its dead set; returns their ids, oldest death first. */
    private static List<String> deadJobs(String queue, int n) {
        Queue q = client.queue(queue);
        for (int i = 0; i < n; i++) {
            q.enqueue("x".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withMaxAttempts(1));
            Job job = q.claim(Duration.ofSeconds(30)).orElseThrow();
            job.fail("boom");
        }
        return q.dead(n).stream().map(io.echomq.queue.DeadJob::id).toList();
    }

    private static List<AuditEntry> trail(String queue) {
        return client.auditTrail().recent(AuditTarget.queue(queue), 100);
    }

    @Test
    void eachChangeOfAQueueIsRecordedWithWhoAndWhat() {
        List<String> dead = deadJobs("payments", 3);
        String waiting = client.queue("payments").enqueue("w");
        String removable = client.queue("payments").enqueue("r");

        assertThat(emq("queue", "pause", "payments").out()).isEqualTo("PAUSED\n");
        assertThat(emq("queue", "pause", "payments").out()).as("a change of nothing").isEqualTo("ALREADY_PAUSED\n");
        assertThat(emq("queue", "limit", "payments", "10/1s").code()).isZero();
        assertThat(emq("queue", "limit", "payments", "off").code()).isZero();
        assertThat(emq("queue", "cap", "payments", "2").code()).isZero();
        assertThat(emq("queue", "cap", "payments", "off").code()).isZero();
        assertThat(emq("queue", "cancel", "payments", waiting).out()).isEqualTo("CANCELLED\n");
        assertThat(emq("queue", "remove", "payments", removable, "--force", "--yes").out()).endsWith("REMOVED\n");
        assertThat(emq("queue", "dead", "payments", "--retry", "--dry-run").code()).as("a dry run").isZero();
        assertThat(emq("queue", "dead", "payments", "--retry", "--yes").out()).isEqualTo("redriven=3\n");
        assertThat(emq("queue", "resume", "payments").out()).isEqualTo("RESUMED\n");

        List<AuditEntry> records = trail("payments");
        assertThat(records).extracting(AuditEntry::action).containsExactly("resumed", "redriven", "removed",
                "cancelled", "cap-cleared", "cap-set", "rate-limit-cleared", "rate-limit-set", "paused");
        assertThat(records).allSatisfy(e -> assertThat(e.who()).startsWith(WHO).contains(" pid "));
        assertThat(records).extracting(AuditEntry::detail).containsExactly("",
                "3 jobs, first ids: " + String.join(", ", dead), "job " + removable + " (--force)",
                "job " + waiting + " (CANCELLED)", "", "cap 2", "", "limit 10/1000ms", "");
    }

    @Test
    void aPurgeAndADeleteAreRecordedAndTheDeletionOutlivesTheQueue() {
        deadJobs("refunds", 2);
        client.queue("refunds").enqueue("a");
        assertThat(emq("queue", "dead", "refunds", "--purge", "--yes").out()).isEqualTo("purged=2\n");
        assertThat(emq("queue", "delete", "refunds").code()).as("no terminal, no --yes: refused").isEqualTo(10);
        assertThat(emq("queue", "delete", "refunds", "--yes").code()).isZero();

        assertThat(trail("refunds")).extracting(AuditEntry::action).containsExactly("deleted", "purged");
        assertThat(trail("refunds").get(0).detail()).startsWith("1 job (pending=1 active=0 delayed=0 dead=0), ");

        EmqRun run = emq("audit", "--queue", "refunds");
        assertThat(run.code()).as("%s", run).isZero();
        assertThat(run.out().lines()).hasSize(2);
        assertThat(run.out().lines().findFirst().orElseThrow())
                .matches("\\d{4}-\\d\\d-\\d\\dT[^\t]+Z\tdeleted\tqueue refunds\temq [^\t]+ pid \\d+\t1 job .*");
    }

    @Test
    void aLockTakeoverIsRecordedUnderTheLock() {
        EmqRun held = emq("lock", "acquire", "nightly-billing", "--ttl", "600000");
        String token = held.out().replaceAll("(?s)OK token=(\\S+) .*", "$1");
        EmqRun taken = EmqRun.run(Map.of(RedisOptions.ENV, REDIS.url()), "lock", "takeover", "nightly-billing",
                "--holder", token.substring(0, 8), "--ttl", "30000", "--yes");
        assertThat(taken.code()).as("%s", taken).isZero();

        List<AuditEntry> records = client.auditTrail().recent(AuditTarget.lock("nightly-billing"), 10);
        assertThat(records).hasSize(1);
        assertThat(records.get(0).action()).isEqualTo("taken-over");
        assertThat(records.get(0).detail()).startsWith("from holder held token=" + token.substring(0, 8) + "…")
                .doesNotContain(token)
                .endsWith(" to fence " + taken.out().replaceAll("(?s).*TAKEN token=\\S+ fence=(\\d+) .*", "$1").strip());
        assertThat(emq("audit", "--lock", "nightly-billing").out()).contains("\ttaken-over\tlock nightly-billing\temq ");
    }

    @Test
    void theListingReadsEveryRecordNewestFirstInEachFormat() {
        AuditTrail t = client.auditTrail();
        t.record(AuditTarget.queue("a"), io.echomq.audit.AuditAction.PAUSED, "first", "x\ty");
        t.record(AuditTarget.lock("l"), io.echomq.audit.AuditAction.TAKEN_OVER, "second", "line1\nline2");

        EmqRun text = emq("audit");
        assertThat(text.out().lines()).hasSize(2);
        assertThat(text.out()).contains("\ttaken-over\tlock l\tsecond\tline1 line2\n");
        assertThat(text.out().lines().skip(1).findFirst().orElseThrow()).endsWith("\tpaused\tqueue a\tfirst\tx y");

        EmqRun json = emq("audit", "--format", "json", "--limit", "1");
        assertThat(json.out().lines()).hasSize(1);
        assertThat(json.out()).contains("\"action\":\"taken-over\"", "\"kind\":\"lock\"", "\"name\":\"l\"",
                "\"detail\":\"line1\\nline2\"");
        EmqRun csv = emq("audit", "--format", "csv");
        assertThat(csv.out()).startsWith("id,at,action,kind,name,who,detail\r\n");
        assertThat(emq("audit", "--queue", "nothing-here").out()).isEmpty();
    }

    @Test
    void badOptionsExitTwo() {
        assertThat(emq("audit", "--limit", "0").code()).isEqualTo(2);
        assertThat(emq("audit", "--limit", Integer.toString(AuditTrail.MAX_READ + 1)).code()).isEqualTo(2);
        assertThat(emq("audit", "--queue", "a", "--lock", "b").code()).isEqualTo(2);
        EmqRun bad = emq("audit", "--queue", "bad name");
        assertThat(bad.code()).isEqualTo(2);
        assertThat(bad.err()).contains("--queue", "whitespace");
    }

    @Test
    void aTrailThatCannotBeWrittenIsToldAndTheActionStands() {
        client.queue("q").enqueue("a");
        REDIS.raw().call("SET", AuditTrail.KEY, "not a stream");
        EmqRun run = emq("queue", "pause", "q");
        assertThat(run.code()).isZero();
        assertThat(run.out()).isEqualTo("PAUSED\n");
        assertThat(run.err()).contains("emq queue pause: done, but no audit record was written:", "WRONGTYPE");
        assertThat(client.queue("q").isPaused()).isTrue();
    }
}
