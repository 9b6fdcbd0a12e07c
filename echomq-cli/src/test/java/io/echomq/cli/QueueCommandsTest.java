package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.JobRequest;
import io.echomq.queue.Queue;
import io.echomq.queue.QueueClient;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** {@code emq queue …} against a real server: exact outputs, the keys they leave, and exit codes. */
@Timeout(120)
class QueueCommandsTest extends QueueCliTestBase {

    private static final Duration LEASE = Duration.ofSeconds(30);



    private static EmqRun emqWithStdin(byte[] stdin, String... args) {
        return EmqRun.run(Map.of(RedisOptions.ENV, REDIS.url()), new ByteArrayInputStream(stdin), args);
    }

    /**
     * A field of a job's hash, or, for {@code payload} of a job that waits with no hash (a default job
     * of the LIST layout keeps {@code <created_at>:<payload>} in its pending bucket), the bucket's.
     */
    private static Object hget(String queue, String id, String field) {
        Object v = REDIS.raw().call("HGET", "emq:{" + queue + "}:job:" + id, field);
        if (v == null && field.equals("payload")) {
            Object bucketed = REDIS.raw().call("HGET", "emq:{" + queue + "}:pb:" + Long.parseLong(id) / 128, id);
            if (bucketed != null) {
                String value = bucketed.toString();
                return value.substring(value.indexOf(':') + 1);
            }
        }
        return v;
    }

    /** Enqueues with the core API a job allowed one attempt, claims it and fails it: it is dead. */
    private static String deadJob(String queue, String payload, String error) {
        Queue q = client.queue(queue);
        String id = q.enqueue(payload.getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withMaxAttempts(1)).id();
        Job job = q.claim(LEASE).orElseThrow();
        assertThat(job.id()).isEqualTo(id);
        assertThat(job.fail(error)).hasToString("DEAD");
        return id;
    }

    // ------------------------------------------------------------------ enqueue

    @Test
    void enqueuePrintsTheIdAndLeavesAPendingJob() {
        assertThat(emq("queue", "enqueue", "emails", "hello")).isEqualTo(new EmqRun(0, "1\n", ""));
        assertThat(emq("queue", "enqueue", "emails", "-starts with a dash")).isEqualTo(new EmqRun(0, "2\n", ""));

        assertThat(hget("emails", "1", "payload")).isEqualTo("hello");
        assertThat(hget("emails", "1", "state")).as("absent: pending, the protocol's default").isNull();
        assertThat(emq("queue", "inspect", "emails", "1").out()).startsWith("state=pending\n");
        assertThat(hget("emails", "2", "payload")).isEqualTo("-starts with a dash");
        // priority 0 waits in the LIST emq:{q}:wait (these CLI tests used to read the pending ZSET)
        assertThat(REDIS.raw().call("LRANGE", "emq:{emails}:wait", "0", "-1")).isEqualTo(List.of("1", "2"));
    }

    @Test
    void enqueueOptionsReachTheJob() {
        EmqRun run = emq("queue", "enqueue", "emails", "x", "--priority", "7", "--max-attempts", "2");
        assertThat(run).isEqualTo(new EmqRun(0, "1\n", ""));
        assertThat(hget("emails", "1", "priority")).isEqualTo("7");
        assertThat(hget("emails", "1", "max_attempts")).isEqualTo("2");

        assertThat(emq("queue", "enqueue", "emails", "later", "--delay", "60000").out()).isEqualTo("2\n");
        assertThat(hget("emails", "2", "state")).isEqualTo("delayed");
        assertThat(REDIS.raw().call("ZSCORE", "emq:{emails}:due", "2")).isNotNull();
        assertThat(REDIS.raw().call("ZSCORE", "emq:{emails}:pending", "1")).as("priority 7: the ZSET").isNotNull();
        assertThat(REDIS.raw().call("ZSCORE", "emq:{emails}:pending", "2")).isNull();
        assertThat(REDIS.raw().call("LLEN", "emq:{emails}:wait")).isEqualTo(0L);
        assertThat(emq("queue", "stats", "emails").out()).startsWith("pending=1 active=0 delayed=1 ");
    }

    @Test
    void dashReadsThePayloadFromStdinAsBytes() {
        assertThat(emqWithStdin("line 1\nline 2\n".getBytes(StandardCharsets.UTF_8), "queue", "enqueue", "q", "-"))
                .isEqualTo(new EmqRun(0, "1\n", ""));
        assertThat(hget("q", "1", "payload")).isEqualTo("line 1\nline 2\n");

        assertThat(emqWithStdin(new byte[] {0, (byte) 0xff, 'a'}, "queue", "enqueue", "q", "-").out()).isEqualTo("2\n");
        // the bucket value is "<created_at>:" and then the payload's three bytes as they came
        assertThat((Long) REDIS.raw().call("HSTRLEN", "emq:{q}:pb:0", "2")).isEqualTo(13L + 1 + 3);
        assertThat(emq("queue", "inspect", "q", "2").out()).contains("payload=base64:AP9h\n");
    }

    @Test
    void aPayloadOverTheLimitIsBadInput() {
        byte[] big = new byte[QueueClient.DEFAULT_MAX_PAYLOAD_BYTES + 10];

        EmqRun run = emqWithStdin(big, "queue", "enqueue", "q", "-");

        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("emq queue enqueue: <payload> is over the limit of "
                + QueueClient.DEFAULT_MAX_PAYLOAD_BYTES + " bytes (--max-payload raises it, up to "
                + QueueClient.MAX_PAYLOAD_LIMIT + ") (see 'emq queue enqueue --help')\n");
        assertThat(REDIS.raw().call("EXISTS", "emq:{q}:seq")).isEqualTo(0L);
    }

    @Test
    void aKnownIdempotencyKeyPrintsTheExistingIdAndANote() {
        assertThat(emq("queue", "enqueue", "q", "first", "--key", "invoice-42", "--key-window", "60000"))
                .isEqualTo(new EmqRun(0, "1\n", ""));

        EmqRun again = emq("queue", "enqueue", "q", "second", "--key", "invoice-42");

        assertThat(again.code()).isZero();
        assertThat(again.out()).isEqualTo("1\n");
        assertThat(again.err()).contains("existing job 1").hasLineCount(1);
        assertThat(REDIS.raw().call("LLEN", "emq:{q}:wait")).isEqualTo(1L);
        assertThat(hget("q", "1", "payload")).isEqualTo("first");
        assertThat((Long) REDIS.raw().call("PTTL", "emq:{q}:idem:invoice-42")).isBetween(1L, 60_000L);
    }

    @Test
    void theKeyWindowDefaultsToOneDay() {
        emq("queue", "enqueue", "q", "x", "--key", "k");

        assertThat((Long) REDIS.raw().call("PTTL", "emq:{q}:idem:k")).isBetween(86_400_000L - 60_000, 86_400_000L);
    }

    // ------------------------------------------------------------------ stats and reap

    @Test
    void statsPrintsEveryCountOnOneLine() {
        assertThat(emq("queue", "pause", "q", "--create").code()).isZero();
        assertThat(emq("queue", "stats", "q"))
                .isEqualTo(new EmqRun(0, "pending=0 active=0 delayed=0 dead=0 completed=0 failed=0 overdue=0 paused=1 limit=none cap=none throttled=no\n", ""));
        assertThat(emq("queue", "resume", "q").code()).isZero();

        Queue q = client.queue("q");
        q.enqueueAll(List.of(JobRequest.of("a"), JobRequest.of("b"), JobRequest.of("c"), JobRequest.of("d")));
        q.claim(LEASE).orElseThrow().complete();
        q.claim(LEASE).orElseThrow().failWithoutRetry("no");
        q.claim(LEASE).orElseThrow();
        emq("queue", "enqueue", "q", "later", "--delay", "60000");

        assertThat(emq("queue", "stats", "q"))
                .isEqualTo(new EmqRun(0, "pending=1 active=1 delayed=1 dead=1 completed=1 failed=1 overdue=0 paused=0 limit=none cap=none throttled=no\n", ""));
    }

    @Test
    void reapReturnsExpiredLeasesAndBuriesSpentOnes() {
        Queue q = client.queue("q");
        q.enqueue("retry me");
        q.enqueue("once".getBytes(StandardCharsets.UTF_8), EnqueueOptions.defaults().withMaxAttempts(1));
        assertThat(q.claim(2, Queue.MIN_LEASE)).hasSize(2);
        await().atMost(Duration.ofSeconds(10)).until(() -> q.stats().overdue() == 2);
        assertThat(emq("queue", "stats", "q").out()).contains(" active=2 ").endsWith(" overdue=2 paused=0 limit=none cap=none throttled=no\n");

        assertThat(emq("queue", "reap", "q")).isEqualTo(new EmqRun(0, "returned=1 dead=1\n", ""));

        assertThat(emq("queue", "stats", "q").out()).startsWith("pending=1 active=0 delayed=0 dead=1 ");
        assertThat(emq("queue", "reap", "q", "--limit", "1")).isEqualTo(new EmqRun(0, "returned=0 dead=0\n", ""));
    }

    // ------------------------------------------------------------------ remove

    @Test
    void removeAnswersRemovedThenMissing() {
        emq("queue", "enqueue", "q", "x", "--key", "k");

        assertThat(emq("queue", "remove", "q", "1")).isEqualTo(new EmqRun(0, "REMOVED\n", ""));
        assertThat(REDIS.raw().call("EXISTS", "emq:{q}:job:1", "emq:{q}:idem:k")).isEqualTo(0L);
        assertThat(REDIS.raw().call("EXISTS", "emq:{q}:pending", "emq:{q}:wait")).isEqualTo(0L);

        assertThat(emq("queue", "remove", "q", "1")).isEqualTo(new EmqRun(1, "MISSING\n", ""));
    }

    @Test
    void removeOfAHeldJobIsLockedUnlessForced() {
        Queue q = client.queue("q");
        String id = q.enqueue("busy");
        Job job = q.claim(LEASE).orElseThrow();

        assertThat(emq("queue", "remove", "q", id)).isEqualTo(new EmqRun(1, "LOCKED\n", ""));
        assertThat(hget("q", id, "state")).isEqualTo("active");

        assertThat(emq("queue", "remove", "q", id, "--force", "--yes")).isEqualTo(new EmqRun(0, "REMOVED\n", ""));
        assertThat(REDIS.raw().call("EXISTS", "emq:{q}:job:" + id, "emq:{q}:job:" + id + ":lock")).isEqualTo(0L);
        assertThat(job.complete()).hasToString("LEASE_LOST");
    }

    // ------------------------------------------------------------------ dead

    @Test
    void deadListsOneTabSeparatedLinePerJob() {
        Instant before = Instant.now().minusSeconds(60);
        String first = deadJob("q", "a", "boom\n\tat somewhere\n");
        String second = deadJob("q", "b", "");

        EmqRun run = emq("queue", "dead", "q");

        assertThat(run.code()).isZero();
        assertThat(run.err()).isEqualTo("emq queue dead: errors are shortened to their first line; --format json or "
                + "csv prints them whole\n");
        String[] lines = run.out().split("\n");
        assertThat(lines).hasSize(2);
        Pattern line = Pattern.compile("([^\\t]+)\\t([^\\t]+)\\tattempts=1\\tfailed on attempt 1 of 1\\t([^\\t]*)");
        Matcher m = line.matcher(lines[0]);
        assertThat(m.matches()).as("line %s", lines[0]).isTrue();
        assertThat(m.group(1)).isEqualTo(first);
        assertThat(m.group(2)).endsWith("Z");
        assertThat(Instant.parse(m.group(2))).isBetween(before, Instant.now().plusSeconds(60));
        assertThat(m.group(3)).isEqualTo("boom");
        Matcher m2 = line.matcher(lines[1]);
        assertThat(m2.matches()).as("line %s", lines[1]).isTrue();
        assertThat(m2.group(1)).isEqualTo(second);
        assertThat(m2.group(3)).isEmpty();
    }

    @Test
    void deadNotesWhatTheLimitLeftOut() {
        String first = deadJob("q", "a", "one");
        deadJob("q", "b", "two");

        EmqRun run = emq("queue", "dead", "q", "--limit", "1");

        assertThat(run.code()).isZero();
        assertThat(run.out()).startsWith(first + "\t").hasLineCount(1);
        assertThat(run.err()).isEqualTo("emq queue dead: listed the oldest 1 of 2 dead jobs (see --limit)\n");
        client.queue("empty").enqueue("x");
        assertThat(emq("queue", "dead", "empty")).isEqualTo(new EmqRun(0, "", ""));
    }

    @Test
    void retryRedrivesEveryDeadJob() {
        for (int i = 0; i < 3; i++) {
            deadJob("q", "p" + i, "e");
        }

        assertThat(emq("queue", "dead", "q", "--retry", "--yes")).isEqualTo(new EmqRun(0, "redriven=3\n", ""));

        assertThat(emq("queue", "stats", "q").out()).startsWith("pending=3 active=0 delayed=0 dead=0 ");
        assertThat(hget("q", "1", "state")).isEqualTo("pending");
        assertThat(emq("queue", "dead", "q", "--retry")).isEqualTo(new EmqRun(0, "redriven=0\n", ""));
    }

    @Test
    void purgeDeletesEveryDeadJob() {
        String id = deadJob("q", "p", "e");
        deadJob("q", "p2", "e");

        assertThat(emq("queue", "dead", "q", "--purge", "--yes")).isEqualTo(new EmqRun(0, "purged=2\n", ""));

        assertThat(REDIS.raw().call("EXISTS", "emq:{q}:job:" + id, "emq:{q}:dead")).isEqualTo(0L);
        assertThat(emq("queue", "stats", "q").out()).contains(" dead=0 ");
    }

    @Test
    void retryAndPurgeOfManyReportProgressInBatches() {
        int n = 10_500;
        List<String> zadd = new ArrayList<>(List.of("ZADD", "emq:{many}:dead"));
        for (int i = 1; i <= n; i++) {
            REDIS.raw().call("HSET", "emq:{many}:job:" + i, "payload", "p" + i, "attempts", "1", "spent", "1",
                    "max_attempts", "1", "state", "dead");
            zadd.add(Integer.toString(i));
            zadd.add(Integer.toString(i));
        }
        REDIS.raw().call(zadd.toArray(new String[0]));

        EmqRun retry = emq("queue", "dead", "many", "--retry", "--yes");

        assertThat(retry.code()).isZero();
        assertThat(retry.out()).isEqualTo("redriven=" + n + "\n");
        assertThat(retry.err()).isEqualTo("emq queue dead: redriven 10000 so far\n");
        assertThat(REDIS.raw().call("LLEN", "emq:{many}:wait")).isEqualTo((long) n);

        REDIS.raw().call(zadd.toArray(new String[0]));   // dead again, by hand
        REDIS.raw().call("DEL", "emq:{many}:wait");
        EmqRun purge = emq("queue", "dead", "many", "--purge", "--yes");

        assertThat(purge.code()).isZero();
        assertThat(purge.out()).isEqualTo("purged=" + n + "\n");
        assertThat(purge.err()).isEqualTo("emq queue dead: purged 10000 so far\n");
        assertThat(REDIS.raw().call("EXISTS", "emq:{many}:dead", "emq:{many}:job:1", "emq:{many}:job:" + n))
                .isEqualTo(0L);
    }

    @Test
    void retryAndPurgeAreMutuallyExclusive() {
        String id = deadJob("q", "p", "e");

        EmqRun run = emq("queue", "dead", "q", "--retry", "--purge");

        assertThat(run).isEqualTo(new EmqRun(2, "", "emq queue dead: --retry and --purge are mutually exclusive "
                + "(see 'emq queue dead --help')\n"));
        assertThat(hget("q", id, "state")).isEqualTo("dead");
    }

    // ------------------------------------------------------------------ inspect

    @Test
    void inspectPrintsEveryFieldOnItsOwnLine() {
        emq("queue", "enqueue", "q", "{\"to\":\"ada\"}", "--priority", "3");

        EmqRun run = emq("queue", "inspect", "q", "1");

        assertThat(run.code()).isZero();
        assertThat(run.err()).isEmpty();
        List<String> lines = List.of(run.out().split("\n"));
        assertThat(lines).startsWith("state=pending", "attempts=0", "priority=3");
        assertThat(lines).contains("payload={\"to\":\"ada\"}");
        // the hash of a fresh job holds payload, priority and created_at; state and attempts show their defaults
        Object fields = REDIS.raw().call("HLEN", "emq:{q}:job:1");
        assertThat(fields).isEqualTo(3L);
        assertThat(lines).hasSize(5).anyMatch(l -> l.matches("created_at=\\d{13}"));
    }

    @Test
    void inspectKeepsMultiLineValuesOnOneLine() {
        String id = deadJob("q", "two\nlines", "boom\n\tat a\\b\n");

        EmqRun run = emq("queue", "inspect", "q", id);

        assertThat(run.code()).isZero();
        assertThat(run.out()).startsWith("state=dead\n")
                .contains("\nlast_error=boom\\n\tat a\\\\b\\n\n", "\ndead_reason=failed on attempt 1 of 1\n");
        assertThat(run.out()).contains("\npayload=base64:dHdvCmxpbmVz\n");   // "two\nlines"
        assertThat(run.out().lines()).allMatch(l -> l.matches("[a-z_]+=.*"));
    }

    @Test
    void inspectOfAMissingJobExitsOne() {
        client.queue("q").enqueue("x");
        assertThat(emq("queue", "inspect", "q", "99")).isEqualTo(new EmqRun(1, "", "emq queue inspect: no job 99 in queue q ("
                + "removed, or completed: a completed job keeps no hash unless the queue's retention asks, "
                + "see emq queue retention)\n"));
    }

    // ------------------------------------------------------------------ failures and help

    static Stream<Arguments> badInput() {
        return Stream.of(
                Arguments.of(new String[] {"queue", "stats", "a{b}"},
                        "emq queue stats: Invalid value for <queue>: queue name must not contain '{', '}', whitespace "
                                + "or control characters; found '{' at index 1 (see 'emq queue stats --help')"),
                Arguments.of(new String[] {"queue", "enqueue", "q", "x", "--delay", "-1"},
                        "emq queue enqueue: Invalid value for option '--delay': -1 is outside 0..31536000000 "
                                + "milliseconds (see 'emq queue enqueue --help')"),
                Arguments.of(new String[] {"queue", "enqueue", "q", "x", "--priority", "1001"},
                        "emq queue enqueue: Invalid value for option '--priority': 1001 is outside -1000..1000 "
                                + "(see 'emq queue enqueue --help')"),
                Arguments.of(new String[] {"queue", "enqueue", "q", "x", "--priority", "-1001"},
                        "emq queue enqueue: Invalid value for option '--priority': -1001 is outside -1000..1000 "
                                + "(see 'emq queue enqueue --help')"),
                Arguments.of(new String[] {"queue", "enqueue", "q", "x", "--max-attempts", "0"},
                        "emq queue enqueue: Invalid value for option '--max-attempts': 0 is outside 1..1000 "
                                + "(see 'emq queue enqueue --help')"),
                Arguments.of(new String[] {"queue", "enqueue", "q", "x", "--key-window", "5"},
                        "emq queue enqueue: --key-window needs --key (see 'emq queue enqueue --help')"),
                Arguments.of(new String[] {"queue", "enqueue", "q", "x", "--key", ""},
                        "emq queue enqueue: --key must not be empty (see 'emq queue enqueue --help')"),
                Arguments.of(new String[] {"queue", "enqueue", "q", "x", "--key", "k", "--key-window", "0"},
                        "emq queue enqueue: Invalid value for option '--key-window': 0 is outside 1..31536000000 "
                                + "milliseconds (see 'emq queue enqueue --help')"),
                Arguments.of(new String[] {"queue", "enqueue", "q"},
                        "emq queue enqueue: Missing required parameter: '<payload>' (or --lines to read one job "
                                + "per line of stdin) (see 'emq queue enqueue --help')"),
                Arguments.of(new String[] {"queue", "enqueue", "q", "x", "--bogus"},
                        "emq queue enqueue: Unknown option: '--bogus' (see 'emq queue enqueue --help')"),
                Arguments.of(new String[] {"queue", "stats", "q", "--limit", "3"},
                        "emq queue stats: Unknown options: '--limit', '3' (see 'emq queue stats --help')"),
                Arguments.of(new String[] {"queue", "reap", "q", "--limit", "0"},
                        "emq queue reap: Invalid value for option '--limit': 0 is outside 1..10000 "
                                + "(see 'emq queue reap --help')"),
                Arguments.of(new String[] {"queue", "dead", "q", "--limit", "10001"},
                        "emq queue dead: Invalid value for option '--limit': 10001 is outside 1..10000 "
                                + "(see 'emq queue dead --help')"),
                Arguments.of(new String[] {"queue", "remove", "q", ""},
                        "emq queue remove: <id> must not be empty (see 'emq queue remove --help')"),
                Arguments.of(new String[] {"queue", "inspect", "q"},
                        "emq queue inspect: Missing required parameter: '<id>' (see 'emq queue inspect --help')"),
                Arguments.of(new String[] {"queue", "stats", "--redis", "http://x", "q"},
                        "emq queue stats: Malformed Redis URL 'http://x': the scheme must be redis://, rediss:// "
                                + "or redis-socket://"),
                Arguments.of(new String[] {"queue"},
                        "emq queue: Missing required subcommand (see 'emq queue --help')"));
    }

    /** The URL points at a closed port: exit 2 proves the input was judged before Redis was touched. */
    @ParameterizedTest
    @MethodSource("badInput")
    void badInputExitsTwoBeforeRedisIsTouched(String[] args, String message) {
        EmqRun run = EmqRun.at("redis://127.0.0.1:" + EmqRun.closedPort(), args);

        assertThat(run.err()).isEqualTo(message + "\n");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
    }

    static Stream<Arguments> everyQueueCommand() {
        return Stream.of(
                new String[] {"queue", "enqueue", "q", "x"},
                new String[] {"queue", "stats", "q"},
                new String[] {"queue", "reap", "q"},
                new String[] {"queue", "remove", "q", "1"},
                new String[] {"queue", "dead", "q"},
                new String[] {"queue", "dead", "q", "--retry"},
                new String[] {"queue", "dead", "q", "--purge"},
                new String[] {"queue", "inspect", "q", "1"}).map(args -> Arguments.of((Object) args));
    }

    @ParameterizedTest
    @MethodSource("everyQueueCommand")
    void unreachableRedisExitsThree(String[] args) {
        int port = EmqRun.closedPort();

        EmqRun run = EmqRun.at("redis://127.0.0.1:" + port, args);

        assertThat(run.code()).isEqualTo(3);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).startsWith("emq queue " + args[1] + ": cannot connect to 127.0.0.1:" + port)
                .contains("is a server running?")
                .hasLineCount(1);
    }

    @Test
    void everyQueueCommandDocumentsItsOutputAndExitCodes() {
        Map<String, String> documents = Map.of(
                "enqueue", "prints its id",
                "stats", "pending=N active=N delayed=N dead=N completed=N failed=N overdue=N paused=0|1",
                "reap", "returned=N dead=M",
                "remove", "MISSING (no such job; exit code 1)",
                "dead", "redriven=N",
                "inspect", "exit code 1 (and nothing on stdout) when there is no such job");
        documents.forEach((command, text) -> {
            EmqRun run = EmqRun.run(Map.of(), "queue", command, "--help");
            assertThat(run.code()).isZero();
            assertThat(run.out()).contains(text, "Exit codes:", "  2  bad input", "  3  Redis failure");
            if (command.equals("remove")) {
                assertThat(run.out()).contains("  1  LOCKED (a worker holds it; add --force) or MISSING");
            } else if (command.equals("inspect")) {
                assertThat(run.out()).contains("  1  no such job");
            } else {
                assertThat(run.out()).as("only the codes %s can return", command).doesNotContain("  1  ");
            }
        });
        assertThat(EmqRun.run(Map.of(), "queue", "--help").out())
                .contains("enqueue", "stats", "reap", "remove", "dead", "inspect", "Exit codes:");
    }
}
