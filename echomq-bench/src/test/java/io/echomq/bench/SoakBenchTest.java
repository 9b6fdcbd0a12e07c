package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code emq bench soak}: a run of a few seconds on a server it starts itself, checking the shape
 * of what it prints (no figure is asserted: the verdict of so short a run on a shared machine is
 * not a measurement), its refusal of bad input, and the verdict's arithmetic on given samples.
 */
class SoakBenchTest {
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
    void aShortSoakOnItsOwnServerPrintsEverySampleTheSecondHalfAndAVerdict() {
        Run r = run("soak", "--seconds", "4", "--interval", "1", "--concurrency", "4");

        assertThat(r.exit()).as(r.out() + r.err()).isIn(0, 1);
        assertThat(r.out()).contains("server: Redis ").contains("started for this run")
                .contains("soak: 4 s, one worker at concurrency 4, no-op handler")
                .contains("client retainCompleted default (0 ms)");
        Matcher sample = Pattern.compile("(?m)^t=\\s*\\d+s\\s+used_memory=\\s*[0-9,]+\\s+dbsize=\\s*[0-9,]+\\s+"
                + "jobs/s=\\s*[0-9,]+$").matcher(r.out());
        int samples = 0;
        while (sample.find()) {
            samples++;
        }
        assertThat(samples).as(r.out()).isEqualTo(4);
        assertThat(r.out()).containsPattern("second half: first used_memory [0-9,]+ \\(t=2 s\\), last [0-9,]+ \\(t=4 s\\)")
                .containsPattern("(?m)^(PASS|FAIL): the second half's used_memory max/min is [0-9.]+");
        Matcher summary = Pattern.compile("soak: seconds=4 jobs=(\\d+) jobs_per_s=\\d+ first_used_memory=\\d+ "
                + "last_used_memory=\\d+ max_min_ratio=[0-9.]+ verdict=(PASS|FAIL)\\s*$").matcher(r.out());
        assertThat(summary.find()).as(r.out()).isTrue();
        assertThat(Long.parseLong(summary.group(1))).as("jobs completed").isPositive();
        assertThat(r.exit()).isEqualTo(summary.group(2).equals("PASS") ? 0 : 1);
    }

    @Test
    void badInputExitsWith2() {
        assertThat(run("soak", "--seconds", "3", "--interval", "2").exit()).as("too short for two samples in the second half")
                .isEqualTo(2);
        assertThat(run("soak", "--minutes", "0").exit()).isEqualTo(2);
        assertThat(run("soak", "--concurrency", "0").exit()).isEqualTo(2);
        assertThat(run("soak", "--retain-completed", "-1").exit()).isEqualTo(2);
    }

    @Test
    void theVerdictReadsTheSecondHalfOnly() {
        SoakSamples s = new SoakSamples();
        s.add(1_000, 100, 10, 1_000);
        s.add(2_000, 500, 10, 3_000);     // the first half: its growth does not count
        s.add(3_000, 1_000, 10, 6_000);
        s.add(4_000, 1_050, 10, 9_000);
        s.add(5_000, 1_100, 10, 12_000);
        SoakSamples.Verdict v = s.verdict(5_000);
        assertThat(v.first().atMs()).isEqualTo(3_000);
        assertThat(v.last().usedMemory()).isEqualTo(1_100);
        assertThat(v.ratio()).isEqualTo(1.1);
        assertThat(v.pass()).isTrue();
        assertThat(s.all().get(1).jobsPerS()).isEqualTo(2_000.0);

        s.add(6_000, 1_300, 10, 15_000);
        SoakSamples.Verdict grown = s.verdict(6_000);
        assertThat(grown.ratio()).isEqualTo(1.3);
        assertThat(grown.word()).isEqualTo("FAIL");
    }

    @Test
    void aSecondHalfOfOneSampleIsRefused() {
        SoakSamples s = new SoakSamples();
        s.add(1_000, 100, 1, 1);
        assertThatThrownBy(() -> s.verdict(2_000)).isInstanceOf(IllegalStateException.class);
    }
}
