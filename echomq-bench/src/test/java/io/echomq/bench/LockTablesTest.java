package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.bench.LockRound.Figure;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scripted limit in the tables of {@code emq bench locks}: its figures are medianed like every
 * other row's, and {@code echomq/scripted} is the median of the per-round ratios, in the medians
 * table, the targets, the summary line and the record.
 */
class LockTablesTest {
    @TempDir
    Path dir;

    private static LockRound round(double ours, double scripted, double scriptedP50Micros) {
        LockRound r = new LockRound();
        r.ours.put(16, new Figure(ours, 300, 900));
        r.limit.put(16, new Figure(1000, 200, 600));
        r.plain.put(16, new Figure(990, 210, 610));
        r.scripted.put(16, new Figure(scripted, scriptedP50Micros, 700));
        return r;
    }

    // per-round echomq/scripted: 900/1000 = 0.9, 1000/800 = 1.25, 400/500 = 0.8, so the median is
    // 0.90; the ratio of the medians would be 900/800 = 1.125
    private static final List<LockRound> ROUNDS = List.of(round(900, 1000, 250), round(1000, 800, 150),
            round(400, 500, 350));

    @Test
    void theScriptedRowIsMedianedAndItsRatioIsTheMedianOfTheRounds() {
        LockTables tables = new LockTables(List.of(16), 0);
        Spread s = tables.vsScripted(ROUNDS, 16);
        assertThat(s.median()).isEqualTo(0.9);
        assertThat(s.min()).isEqualTo(0.8);
        assertThat(s.max()).isEqualTo(1.25);

        StringWriter text = new StringWriter();
        tables.printMedians(new PrintWriter(text), ROUNDS, "Redisson: skipped (--no-peer)");
        String out = text.toString();
        // scripted: median 800 pairs/s, p50 0.25 ms, p99 0.70 ms; then echomq/scripted with its range
        assertThat(out).containsPattern("(?m)^16 .*\\s800 0\\.25/0\\.70\\s+0\\.90 \\(0\\.80–1\\.25\\) *$")
                .containsPattern("distinct, 16 threads: echomq/scripted >= 0\\.9\\s+0\\.90\\s+meets")
                .containsPattern("distinct, 16 threads: echomq/limit\\s+>= 0\\.9\\s+0\\.90\\s+meets")
                .containsPattern("(?m)^locks: echomq/redisson=n/a echomq/limit=0\\.90 plain/limit=0\\.99 "
                        + "echomq/scripted=0\\.90$");
    }

    @Test
    void aRoundWithoutTheScriptedRowIsLeftOut() {
        LockRound missing = round(5000, 1, 1);
        missing.scripted.clear();
        List<LockRound> rounds = List.of(ROUNDS.get(0), missing, ROUNDS.get(2));
        // 0.9 and 0.8 are left: their mean
        assertThat(new LockTables(List.of(16), 0).vsScripted(rounds, 16).ratioText()).isEqualTo("0.85 (0.80–0.90)");

        StringWriter text = new StringWriter();
        new LockTables(List.of(16), 0).printRound(new PrintWriter(text), "round 2 of 3", missing);
        assertThat(text.toString()).containsPattern("(?m)^16 .*\\s-\\s+n/a *$");
    }

    @Test
    void theRecordHoldsTheScriptedMediansAndTheirRatio() throws Exception {
        Path file = dir.resolve("locks.tsv");
        new LockTables(List.of(16), 0).record(ROUNDS).writeTo(file);
        assertThat(Files.readAllLines(file)).contains("distinct.16.scripted.per_s\t800.000",
                "distinct.16.scripted.p50_ms\t0.250", "distinct.16.scripted.p99_ms\t0.700",
                "distinct.16.echomq/scripted\t0.900", "distinct.16.echomq/scripted.min\t0.800",
                "distinct.16.echomq/scripted.max\t1.250", "distinct.16.echomq/limit\t0.900");
    }
}
