package io.echomq.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Keeps the benchmark runnable: a tiny run on 1 master and on a 3-master cluster must drain its
 * jobs and print every figure the scaling model needs. It asserts no timing.
 */
@Timeout(180)
class ShardedScalingBenchSmokeTest {
    @Test
    void aTinyRunPrintsBothTopologiesTheRatioAndTheModel() throws Exception {
        PrintStream saved = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            System.setOut(out);
            ShardedScalingBench.main(new String[] {"300", "3", "1", "4", "1"});
        } finally {
            System.setOut(saved);
        }
        String printed = captured.toString(StandardCharsets.UTF_8);
        saved.print(printed);
        assertThat(printed).containsPattern("(?m)^1 master +[0-9,]+ jobs/s +server CPU")
                .containsPattern("(?m)^3 masters +[0-9,]+ jobs/s +server CPU")
                .containsPattern("(?m)^1 master, plain queue +[0-9,]+ jobs/s")
                .containsPattern("ratio 3 masters / 1 master: [0-9]+\\.[0-9]{2}")
                .containsPattern("model, shared CPUs: predicted ratio [0-9]+\\.[0-9]{2}")
                .contains("model 3 masters: masters bound");
    }
}
