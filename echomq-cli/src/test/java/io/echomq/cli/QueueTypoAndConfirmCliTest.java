package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueStats;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * A queue command on an unknown queue exits 2 with the close stored names and touches nothing
 * ({@code --create} makes the queue), and the destructive commands show what they would touch and
 * act only when confirmed: {@code --yes}, or y on a terminal; {@code --dry-run} changes nothing.
 */
@Timeout(60)
class QueueTypoAndConfirmCliTest extends QueueCliTestBase {

    /** @return every key and its value as DUMP bytes, to compare the keyspace before and after */
    private static Map<String, Object> keyspace() {
        Map<String, Object> all = new TreeMap<>();
        @SuppressWarnings("unchecked")
        List<Object> keys = (List<Object>) REDIS.raw().call("KEYS", "*");
        for (Object key : keys) {
            String k = key instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(key);
            Object dump = REDIS.raw().call("DUMP", k);
            all.put(k, dump instanceof byte[] b ? new String(b, StandardCharsets.ISO_8859_1) : String.valueOf(dump));
        }
        return all;
    }

    @ParameterizedTest
    @ValueSource(strings = {"stats", "pause", "limit", "cap", "worker", "timeout", "retention", "layout",
        "event-settings", "resume", "dead", "list", "delete", "reap", "workers", "groups", "events", "inspect",
        "remove", "cancel", "wait"})
    void aTypoExits2WithTheSuggestionAndTouchesNothing(String command) {
        client.queue("payments").enqueue("a");
        client.queue("payouts").enqueue("b");
        Map<String, Object> before = keyspace();

        EmqRun run = switch (command) {
            case "worker" -> emq("worker", "paymnets", "--exec", "true", "--exit-when-idle");
            case "limit" -> emq("queue", "limit", "paymnets", "50/1s");
            case "cap" -> emq("queue", "cap", "paymnets", "3");
            case "timeout" -> emq("queue", "timeout", "paymnets", "30000");
            case "retention" -> emq("queue", "retention", "paymnets", "--done-max", "5");
            case "layout" -> emq("queue", "layout", "paymnets", "zset");
            case "event-settings" -> emq("queue", "event-settings", "paymnets", "--max", "10");
            case "groups" -> emq("queue", "groups", "paymnets", "max", "2");
            case "delete" -> emq("queue", "delete", "paymnets", "--yes");
            case "inspect", "remove", "cancel" -> emq("queue", command, "paymnets", "1");
            case "wait" -> emq("queue", "wait", "paymnets", "1", "--timeout", "100");
            default -> emq("queue", command, "paymnets");
        };

        assertThat(run.code()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("no such queue 'paymnets'; did you mean 'payments'?");
        assertThat(keyspace()).isEqualTo(before);
    }

    @Test
    void severalCloseNamesAreAllSuggestedAndNoneWhenNothingIsClose() {
        client.queue("emails").enqueue("a");
        client.queue("email").enqueue("b");
        client.queue("orders").enqueue("c");
        assertThat(emq("queue", "stats", "emial").err())
                .contains("no such queue 'emial'; did you mean 'email' or 'emails'?");
        EmqRun far = emq("queue", "pause", "zzz");
        assertThat(far.code()).isEqualTo(2);
        assertThat(far.err()).contains("no such queue 'zzz' on this server; a queue is created by its first "
                + "enqueue, or by this command with --create");
        assertThat(REDIS.raw().call("EXISTS", "emq:{zzz}:paused")).isEqualTo(0L);
    }

    @Test
    void createMakesTheQueueAndLaterCommandsFindIt() {
        assertThat(emq("queue", "cap", "fresh", "3", "--create")).isEqualTo(new EmqRun(0, "cap=3\n", ""));
        assertThat(emq("queue", "cap", "fresh")).isEqualTo(new EmqRun(0, "cap=3\n", ""));
        assertThat(emq("queue", "limit", "fresh2", "5/1s", "--create").code()).isZero();
        assertThat(emq("queue", "limit", "fresh2").out()).isEqualTo("limit=5/1000ms\n");
        assertThat(emq("queue", "pause", "fresh3", "--create")).isEqualTo(new EmqRun(0, "PAUSED\n", ""));
        assertThat(emq("queue", "stats", "fresh3").out()).contains(" paused=1 ");
        EmqRun worker = emq("worker", "fresh4", "--exec", "true", "--exit-when-idle", "--create");
        assertThat(worker.code()).as(worker.err()).isZero();
    }

    @Test
    void aShardedQueueIsAQueue() {
        assertThat(emq("queue", "enqueue", "orders", "{}", "--partitions", "3").code()).isZero();
        assertThat(emq("queue", "stats", "orders").code()).isZero();
        assertThat(emq("queue", "pause", "orders")).isEqualTo(new EmqRun(0, "PAUSED\n", ""));
        assertThat(emq("queue", "stats", "ordres").err()).contains("did you mean 'orders'?");
    }

    /**
     * Puts {@code n} jobs into the dead set of {@code queue} and returns their ids in the dead set's
     * order (oldest death first; deaths in one millisecond by id as text), the order the CLI shows.
     */
    private static List<String> deadJobs(String queue, int n) {
        Queue q = client.queue(queue);
        for (int i = 0; i < n; i++) {
            q.enqueue("x".getBytes(StandardCharsets.UTF_8), io.echomq.queue.EnqueueOptions.defaults().withMaxAttempts(1));
            Job job = q.claim(Duration.ofSeconds(30)).orElseThrow();
            job.fail("boom");
        }
        List<String> ids = q.dead(n).stream().map(io.echomq.queue.DeadJob::id).toList();
        assertThat(ids).hasSize(n);
        return ids;
    }

    @ParameterizedTest
    @ValueSource(strings = {"--retry", "--purge"})
    void deadRetryAndPurgeRefuseWithoutATerminalAndWithoutYes(String action) {
        List<String> ids = deadJobs("refunds", 12);
        Map<String, Object> before = keyspace();

        EmqRun run = emq("queue", "dead", "refunds", action);

        assertThat(run.code()).isEqualTo(10);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).contains("12 jobs (the first 10: " + String.join(" ", ids.subList(0, 10)) + ")")
                .contains("refused: no terminal to ask and no --yes; nothing was changed");
        assertThat(keyspace()).isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(strings = {"--retry", "--purge"})
    void deadDryRunPrintsTheCountAndIdsAndChangesNothing(String action) {
        List<String> ids = deadJobs("refunds", 5);
        Map<String, Object> before = keyspace();

        EmqRun run = emq("queue", "dead", "refunds", action, "--dry-run");

        assertThat(run.code()).isZero();
        assertThat(run.out()).isEqualTo("dry-run: would " + (action.equals("--retry") ? "redrive" : "purge")
                + " the dead jobs of queue refunds: 5 jobs (" + String.join(" ", ids) + "); nothing was changed\n");
        assertThat(keyspace()).isEqualTo(before);
    }

    @Test
    void deadWithYesActs() {
        deadJobs("refunds", 5);
        assertThat(emq("queue", "dead", "refunds", "--retry", "--yes").out()).isEqualTo("redriven=5\n");
        assertThat(client.queue("refunds").stats().pending()).isEqualTo(5);
        deadJobs("refunds2", 3);
        assertThat(emq("queue", "dead", "refunds2", "--purge", "--yes").out()).isEqualTo("purged=3\n");
        assertThat(client.queue("refunds2").stats().dead()).isZero();
    }

    @Test
    void deleteRefusesWithoutATerminalDryRunsAndActsWithYes() {
        Queue q = client.queue("refunds");
        for (int i = 0; i < 10; i++) {
            q.enqueue("x");
        }
        Map<String, Object> before = keyspace();

        EmqRun refused = emq("queue", "delete", "refunds");
        assertThat(refused.code()).isEqualTo(10);
        assertThat(refused.err()).contains("pending=10 active=0 delayed=0 dead=0")
                .contains("10 jobs (1 2 3 4 5 6 7 8 9 10)").contains("nothing was changed");
        assertThat(keyspace()).isEqualTo(before);

        EmqRun dry = emq("queue", "delete", "refunds", "--dry-run");
        assertThat(dry.code()).isZero();
        assertThat(dry.out()).startsWith("dry-run: would delete queue refunds (pending=10 ")
                .contains(": 10 jobs (1 2 3 4 5 6 7 8 9 10); nothing was changed");
        assertThat(keyspace()).isEqualTo(before);

        EmqRun yes = emq("queue", "delete", "refunds", "--yes");
        assertThat(yes.code()).as(yes.err()).isZero();
        assertThat(yes.out()).startsWith("deleted keys=");
        assertThat(keyspace()).as("only the deletion's audit record is left, outside the queue")
                .containsOnlyKeys(io.echomq.audit.AuditTrail.KEY);
    }

    @Test
    void removeForceRefusesWithoutATerminalDryRunsAndActsWithYes() {
        Queue q = client.queue("refunds");
        String id = q.enqueue("x");
        q.claim(Duration.ofSeconds(30)).orElseThrow();
        Map<String, Object> before = keyspace();

        EmqRun refused = emq("queue", "remove", "refunds", id, "--force");
        assertThat(refused.code()).isEqualTo(10);
        assertThat(refused.err()).contains("remove the active job " + id + " of queue refunds, even while a worker "
                + "holds it: 1 job").contains("nothing was changed");
        assertThat(keyspace()).isEqualTo(before);

        EmqRun dry = emq("queue", "remove", "refunds", id, "--force", "--dry-run");
        assertThat(dry.code()).isZero();
        assertThat(dry.out()).contains("would remove the active job " + id);
        assertThat(keyspace()).isEqualTo(before);

        assertThat(emq("queue", "remove", "refunds", id, "--force", "--yes")).isEqualTo(new EmqRun(0, "REMOVED\n", ""));
        assertThat(client.queue("refunds").inspect(id)).isEmpty();
    }

    /** Runs {@code emq args} as if at a terminal where the user types {@code answer}. */
    private static EmqRun atTerminal(String answer, String... args) {
        CommandLine cli = Emq.commandLine(Map.of(RedisOptions.ENV, REDIS.url()), new ConfirmOptions.Terminal(
                new ByteArrayInputStream(answer.getBytes(StandardCharsets.UTF_8)), () -> true));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return new EmqRun(cli.execute(args), out.toString(), err.toString());
    }

    @Test
    void onATerminalOnlyYActs() {
        deadJobs("refunds", 2);
        Map<String, Object> before = keyspace();
        EmqRun no = atTerminal("n\n", "queue", "dead", "refunds", "--purge");
        assertThat(no.code()).isEqualTo(10);
        assertThat(no.err()).contains("Proceed? [y/N]").contains("not confirmed; nothing was changed");
        assertThat(atTerminal("", "queue", "dead", "refunds", "--purge").code()).isEqualTo(10);
        assertThat(keyspace()).isEqualTo(before);

        EmqRun yes = atTerminal("y\n", "queue", "dead", "refunds", "--purge");
        assertThat(yes.code()).isZero();
        assertThat(yes.out()).isEqualTo("purged=2\n");
        QueueStats s = client.queue("refunds").stats();
        assertThat(s.dead()).isZero();
    }

    @Test
    void nothingToTouchNeedsNoConfirmation() {
        client.queue("calm").enqueue("x");
        assertThat(emq("queue", "dead", "calm", "--purge")).isEqualTo(new EmqRun(0, "purged=0\n", ""));
        assertThat(emq("queue", "dead", "calm", "--retry")).isEqualTo(new EmqRun(0, "redriven=0\n", ""));
        assertThat(emq("queue", "dead", "calm", "--purge", "--dry-run")).isEqualTo(new EmqRun(0,
                "dry-run: would purge the dead jobs of queue calm: 0 jobs; nothing was changed\n", ""));
    }
}
