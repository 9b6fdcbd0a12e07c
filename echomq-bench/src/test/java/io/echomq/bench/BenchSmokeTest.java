package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.echomq.testkit.RedisExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Runs each bench with tiny sizes against the test kit's server and checks the shape of what it
 * prints and that every figure is positive. No timing is asserted: these are not benchmarks.
 * The peers are left out ({@code --no-peer}), except in the test that points the bench at a
 * folder without them, which must say so and still finish.
 */
class BenchSmokeTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @TempDir
    Path empty;

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Bench.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static String lastLine(String text) {
        String[] lines = text.strip().split("\n");
        return lines[lines.length - 1].strip();
    }

    @Test
    void locksPrintsTheTableAndTheSummaryLine() throws Exception {
        // one thread count and two rounds: the time of the one-round run this test used to make
        Path record = empty.resolve("locks.tsv");
        Run r = run("locks", "--threads", "2", "--contended", "2", "--seconds", "1", "--warmup", "0",
                "--rounds", "2", "--no-peer", "--record", record.toString(), "--redis", REDIS.url());

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("server: Redis ").contains("Redisson: skipped (--no-peer)")
                .contains("round 1 of 2 (echomq first)").contains("round 2 of 2 (redisson first)")
                .contains("medians of 2 round(s)")
                .contains("distinct resources: acquire+release pairs/s").contains("one shared resource, 2 threads");
        // the medians' ratio to the limit, with the range of the two rounds' ratios, then the plain
        // row and its ratio to the limit, with its range
        assertThat(r.out()).containsPattern("(?m)^2\\s+[0-9,]+ [0-9.]+/[0-9.]+\\s+-\\s+[0-9,]+ [0-9.]+/[0-9.]+\\s+n/a\\s+"
                + "[0-9.]+ \\([0-9.]+–[0-9.]+\\)\\s+[0-9,]+ [0-9.]+/[0-9.]+\\s+[0-9.]+ \\([0-9.]+–[0-9.]+\\)");
        Matcher row = Pattern.compile("(?m)^2\\s+([0-9,]+) ([0-9.]+)/([0-9.]+)\\s+-\\s+([0-9,]+) [0-9.]+/[0-9.]+\\s+n/a\\s+"
                + "[0-9.]+ \\([0-9.]+–[0-9.]+\\)\\s+([0-9,]+) [0-9.]+/[0-9.]+\\s+([0-9.]+) ").matcher(r.out());
        assertThat(row.find()).as(r.out()).isTrue();
        assertThat(number(row.group(1))).isPositive();
        assertThat(number(row.group(4))).isPositive();
        assertThat(number(row.group(5))).as("plain pairs/s").isPositive();
        assertThat(number(row.group(6))).as("plain/limit").isPositive();
        assertThat(r.out()).containsPattern("distinct, 2 threads: plain/limit\\s+>= 0.95\\s+[0-9.]+\\s+(meets|MISSES)");
        // the scripted limit, the fenced ceiling: the last two columns of each round and of the medians
        assertThat(r.out()).containsPattern("(?m)^threads\\s+echomq\\s+redisson\\s+limit\\s+echomq/redisson\\s+"
                + "echomq/limit\\s+plain\\s+plain/limit\\s+scripted\\s+echomq/scripted *$")
                .contains("scripted: the fenced ceiling, one EVALSHA (SET NX PX, then INCR of the fence)");
        Matcher perRound = Pattern.compile("(?m)^2\\s+[0-9,]+ [0-9.]+/[0-9.]+\\s+-\\s+[0-9,]+ [0-9.]+/[0-9.]+\\s+n/a\\s+"
                + "[0-9.]+\\s+[0-9,]+ [0-9.]+/[0-9.]+\\s+[0-9.]+\\s+([0-9,]+) [0-9.]+/[0-9.]+\\s+([0-9.]+) *$").matcher(r.out());
        for (int round = 1; round <= 2; round++) {
            assertThat(perRound.find()).as("round " + round + " in " + r.out()).isTrue();
            assertThat(number(perRound.group(1))).as("scripted pairs/s, round " + round).isPositive();
            assertThat(number(perRound.group(2))).as("echomq/scripted, round " + round).isPositive();
        }
        Matcher medians = Pattern.compile("(?m)^2\\s+.*\\s+([0-9,]+) [0-9.]+/[0-9.]+\\s+"
                + "([0-9.]+) \\(([0-9.]+)–([0-9.]+)\\) *$").matcher(r.out());
        assertThat(medians.find()).as(r.out()).isTrue();
        assertThat(number(medians.group(1))).as("scripted median pairs/s").isPositive();
        assertThat(number(medians.group(2))).as("echomq/scripted median").isPositive()
                .isBetween(number(medians.group(3)), number(medians.group(4)));
        assertThat(r.out()).containsPattern("distinct, 2 threads: echomq/scripted >= 0.9\\s+[0-9.]+\\s+(meets|MISSES)")
                .containsPattern("distinct, 2 threads: echomq/limit\\s+>= 0.9\\s+[0-9.]+\\s+(meets|MISSES)");
        Matcher last = Pattern.compile("locks: echomq/redisson=n/a echomq/limit=([0-9.]+) plain/limit=([0-9.]+) "
                + "echomq/scripted=([0-9.]+)").matcher(lastLine(r.out()));
        assertThat(last.matches()).as(lastLine(r.out())).isTrue();
        assertThat(Double.parseDouble(last.group(1))).isPositive();
        assertThat(Double.parseDouble(last.group(2))).isPositive();
        assertThat(Double.parseDouble(last.group(3))).as("echomq/scripted").isPositive();
        java.util.Map<String, Double> recorded = new java.util.HashMap<>();
        for (String line : Files.readAllLines(record)) {
            String[] f = line.split("\t");
            recorded.put(f[0], Double.parseDouble(f[1]));
        }
        for (String key : new String[] {"distinct.2.scripted.per_s", "distinct.2.scripted.p50_ms",
                "distinct.2.scripted.p99_ms", "distinct.2.echomq/scripted", "distinct.2.echomq/scripted.min",
                "distinct.2.echomq/scripted.max", "distinct.2.echomq/limit", "distinct.2.plain/limit"}) {
            assertThat(recorded.get(key)).as(key + " in " + recorded).isNotNull().isPositive();
        }
        assertThat(recorded.get("distinct.2.echomq/scripted")).isEqualTo(Double.parseDouble(last.group(3)), within(0.006));
        assertThat(REDIS.raw().call("DBSIZE")).as("the bench deletes its keys").isEqualTo(0L);
    }

    @Test
    void queueRunsOurQueuesInTheZsetLayoutWhenAsked() {
        Run r = run("queue", "--jobs", "500", "--batch", "100", "--concurrency", "2", "--depth", "0",
                "--idle-seconds", "0", "--layout", "zset", "--rounds", "1", "--load", "--no-peer", "--redis", REDIS.url());

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("our layout zset").contains("load: one busy loop in its own process");
        assertThat(r.err()).as("read back from Redis").contains("bench: echomq, pending layout zset");
        assertThat(lastLine(r.out())).startsWith("queue: process_jobs_per_s=");
        assertThat(run("queue", "--layout", "seed", "--no-peer").exit()).isEqualTo(2);
    }

    @Test
    void queuePrintsTheTableAndTheSummaryLine() {
        // enough jobs that their memory outweighs the server's own small allocations
        Run r = run("queue", "--jobs", "3000", "--batch", "500", "--concurrency", "4", "--depth", "1000",
                "--depth-threads", "2", "--seconds", "1", "--idle-seconds", "1", "--rounds", "2", "--no-peer",
                "--redis", REDIS.url());

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("BullMQ: skipped (--no-peer)").contains("idle worker, commands/s")
                .contains("round 1 of 2 (echomq first): enqueue ").contains("round 2 of 2 (bullmq first): enqueue ")
                .contains("medians of 2 round(s)");
        // the fields scripts read stay first and in their order; the CPU figures are appended
        Matcher last = Pattern.compile("queue: process_jobs_per_s=(\\d+) enqueue_jobs_per_s=(\\d+) "
                + "bytes_per_job=(\\d+) depth_ratio=([0-9.]+) process_ratio=n/a enqueue_ratio=n/a "
                + "server_cpu_us_per_job_process=([0-9.]+) client_cpu_us_per_job_process=([0-9.]+) "
                + "server_cpu_us_per_job_enqueue=([0-9.]+) client_cpu_us_per_job_enqueue=([0-9.]+) "
                + "client_switches_per_job_process=([0-9.]+)")
                .matcher(lastLine(r.out()));
        assertThat(last.matches()).as(lastLine(r.out())).isTrue();
        for (int g = 1; g <= 9; g++) {
            assertThat(Double.parseDouble(last.group(g))).as("figure " + g).isPositive();
        }
        for (String cpu : new String[] {"server CPU µs/job, processing", "client CPU µs/job, processing",
                "server CPU µs/job, enqueue", "client CPU µs/job, enqueue"}) {
            Matcher m = Pattern.compile("(?m)^" + Pattern.quote(cpu) + "\\s+([0-9.]+)\\s+-\\s+n/a").matcher(r.out());
            assertThat(m.find()).as(cpu + " in " + r.out()).isTrue();
            assertThat(Double.parseDouble(m.group(1))).as(cpu).isPositive();
        }
        assertThat(r.out()).containsPattern("round 2 of 2 \\(bullmq first\\): .*\\n  CPU µs/job, echomq vs bullmq: "
                + "server enqueue [0-9.]+ vs -, process [0-9.]+ vs -; client enqueue [0-9.]+ vs -, process [0-9.]+ vs -"
                + "\\n  client context switches/job, echomq vs bullmq: process [0-9.]+ vs -");
        // a worker hands each job between threads: at least one switch per job for 3,000 jobs
        Matcher switches = Pattern.compile("(?m)^client context switches/job, processing\\s+([0-9.]+)\\s+-\\s+n/a")
                .matcher(r.out());
        assertThat(switches.find()).as(r.out()).isTrue();
        assertThat(Double.parseDouble(switches.group(1))).as("context switches per processed job").isPositive();
        // the breakdown of our processing: the claim and settle scripts, then their own time
        Matcher evalsha = Pattern.compile("(?m)^  evalsha\\s+([0-9.]+)\\s+([0-9.]+)$").matcher(r.out());
        assertThat(evalsha.find()).as(r.out()).isTrue();
        assertThat(Double.parseDouble(evalsha.group(1))).as("evalsha calls/job").isPositive();
        assertThat(Double.parseDouble(evalsha.group(2))).as("evalsha µs/job").isPositive();
        Matcher overhead = Pattern.compile("(?m)^  script overhead \\(Lua and call conversion\\)\\s+([0-9.]+)\\s+([0-9.]+)$")
                .matcher(r.out());
        assertThat(overhead.find()).as(r.out()).isTrue();
        assertThat(Double.parseDouble(overhead.group(2))).as("script overhead µs/job").isPositive()
                .isLessThan(Double.parseDouble(evalsha.group(2)));
        assertThat(r.err()).contains("bench: echomq, bulk enqueue of 3,000 jobs");
    }

    @Test
    void aMissingPeerIsReportedAndTheBenchStillFinishes() throws Exception {
        Files.createDirectories(empty.resolve("echomq-bench"));
        System.setProperty("emq.home", empty.toString());
        try {
            Run r = run("locks", "--threads", "1", "--contended", "0", "--seconds", "1", "--warmup", "0",
                    "--rounds", "1", "--redis", REDIS.url());
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).contains("Redisson: MISSING, the Redisson peer jar is not built");
            assertThat(lastLine(r.out())).startsWith("locks: echomq/redisson=n/a echomq/limit=").contains(" plain/limit=")
                    .contains(" echomq/scripted=");
        } finally {
            System.clearProperty("emq.home");
        }
    }

    @Test
    void badInputExitsWithTwoBeforeRedisIsTouched() {
        assertThat(run("locks", "--threads", "0", "--redis", "redis://127.0.0.1:1").exit()).isEqualTo(2);
        assertThat(run("locks", "--seconds", "0", "--redis", "redis://127.0.0.1:1").exit()).isEqualTo(2);
        assertThat(run("locks", "--rounds", "0", "--redis", "redis://127.0.0.1:1").exit()).isEqualTo(2);
        assertThat(run("queue", "--rounds", "51", "--redis", "redis://127.0.0.1:1").exit()).isEqualTo(2);
        assertThat(run("queue", "--depth", "10", "--redis", "redis://127.0.0.1:1").exit()).isEqualTo(2);
        assertThat(run("queue", "--redis", "http://x").exit()).isEqualTo(2);
        assertThat(run("queue", "--jobs", "many").exit()).isEqualTo(2);
    }

    private static double number(String s) {
        return Double.parseDouble(s.replace(",", ""));
    }
}
