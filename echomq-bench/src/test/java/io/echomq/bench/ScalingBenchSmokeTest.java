package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Keeps {@code emq bench scaling} runnable: a tiny run on 1 master and on a 3-master cluster (the
 * bench starts both itself) must drain its jobs and print every figure the scaling model needs,
 * each positive, and the summary line, and {@code --record} the same medians. No timing is asserted: this is not a benchmark.
 */
class ScalingBenchSmokeTest {
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

    @Test
    @Timeout(180)
    void aTinyRunPrintsBothTopologiesTheModelAndTheSummaryLine(@TempDir Path dir) throws IOException {
        Path record = dir.resolve("scaling.tsv");
        Run r = run("scaling", "--jobs", "2000", "--partitions", "3", "--clients", "1", "--concurrency", "4",
                "--rounds", "1", "--record", record.toString());

        System.out.print(r.out());   // in the test report, for a look at the figures
        assertThat(r.exit()).as(r.err()).isZero();
        String out = r.out();
        assertThat(out).contains("server: Redis ").contains("3-master cluster of the same binary");
        for (String topology : new String[] {"warm-up, 1 master", "warm-up, 3 masters", "1 master", "3 masters",
                "1 master, plain queue"}) {
            Matcher row = Pattern.compile("(?m)^" + Pattern.quote(topology)
                    + " +([0-9,]+) jobs/s +server CPU +([0-9.]+)"
                    + " us/job +client CPU +([0-9.]+) us/job +script calls ([0-9.]+)/job +CPUs obtained ([0-9.]+)$")
                    .matcher(out);
            assertThat(row.find()).as(topology + " in\n" + out).isTrue();
            for (int g = 1; g <= 5; g++) {
                assertThat(number(row.group(g))).as(topology + ", figure " + g).isPositive();
            }
        }
        assertThat(out)
                .containsPattern("(?m)^masters bound \\(busiest master's CPU\\), jobs/s +[0-9,]+ +[0-9,]+ +[0-9.]+$")
                .containsPattern("(?m)^model: min of the two bounds, jobs/s +[0-9,]+ +[0-9,]+ +[0-9.]+$")
                .containsPattern("(?m)^plain queue on 1 master \\(unsharded\\): [0-9,]+ jobs/s")
                .containsPattern("(?m)^model: 1 master is bound by .+, 3 masters by .+;"
                        + " the model predicts a ratio of [0-9.]+, measured [0-9.]+ ")
                .containsPattern("(?m)^model: where each master has its own core,"
                        + " the masters bound rises [0-9.]+ times");

        String[] lines = out.strip().split("\n");
        Matcher last = Pattern.compile("scaling: masters3/masters1=([0-9.]+) masters1_jobs_per_s=(\\d+) "
                + "masters3_jobs_per_s=(\\d+) model_ratio=([0-9.]+) masters_bound_ratio=([0-9.]+)")
                .matcher(lines[lines.length - 1].strip());
        assertThat(last.matches()).as(lines[lines.length - 1]).isTrue();
        for (int g = 1; g <= 5; g++) {
            assertThat(Double.parseDouble(last.group(g))).as("summary figure " + g).isPositive();
        }
        assertThat(r.err()).as("progress goes to stderr").contains("bench: 3 masters, 2,000 jobs")
                .contains("bench: 1 master, plain queue, 2,000 jobs");
        assertThat(out).doesNotContain("bench: 3 masters, 2,000 jobs");

        // --record: every topology's figures and the ratios, the measured one equal to the summary's
        Map<String, Double> recorded = new LinkedHashMap<>();
        for (String line : Files.readAllLines(record)) {
            String[] f = line.split("\t");
            recorded.put(f[0], Double.parseDouble(f[1]));
        }
        for (String topology : new String[] {"masters1.", "masters3.", "plain."}) {
            for (String figure : new String[] {"jobs_per_s", "server_cpu_us_per_job", "client_cpu_us_per_job",
                    "script_calls_per_job", "cpus_obtained", "masters_bound_jobs_per_s"}) {
                assertThat(recorded.get(topology + figure)).as(topology + figure + " in " + recorded).isPositive();
            }
        }
        assertThat(recorded.get("masters1.jobs_per_s")).isCloseTo(Double.parseDouble(last.group(2)), within(1.0));
        assertThat(recorded.get("masters3_masters1")).isCloseTo(Double.parseDouble(last.group(1)), within(0.01));
        assertThat(recorded.get("model_ratio")).isCloseTo(Double.parseDouble(last.group(4)), within(0.01));
        assertThat(recorded.get("masters_bound_ratio")).isCloseTo(Double.parseDouble(last.group(5)), within(0.01));
    }

    @Test
    void badInputExitsWithTwoBeforeAnyServerStarts() {
        assertThat(run("scaling", "--jobs", "0").exit()).isEqualTo(2);
        assertThat(run("scaling", "--partitions", "0").exit()).isEqualTo(2);
        assertThat(run("scaling", "--partitions", "1025").exit()).isEqualTo(2);
        assertThat(run("scaling", "--clients", "0").exit()).isEqualTo(2);
        assertThat(run("scaling", "--concurrency", "0").exit()).isEqualTo(2);
        assertThat(run("scaling", "--rounds", "0").exit()).isEqualTo(2);
        assertThat(run("scaling", "--rounds", "many").exit()).isEqualTo(2);
    }

    private static double number(String s) {
        return Double.parseDouble(s.replace(",", ""));
    }
}
