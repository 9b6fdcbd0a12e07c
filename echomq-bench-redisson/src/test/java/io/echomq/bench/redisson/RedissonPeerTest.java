package io.echomq.bench.redisson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.bench.loop.ResultLine;
import io.echomq.testkit.RedisExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Redisson peer with tiny sizes on the test kit's server: one well-formed result line per figure. */
class RedissonPeerTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void printsAVersionAndOneResultLinePerFigure() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        RedissonPeer.Options o = RedissonPeer.Options.parse(new String[] {"--redis", REDIS.url(), "--threads", "1,2",
            "--seconds", "1", "--warmup", "0", "--contended", "2"});

        RedissonPeer.run(o, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        List<Map<String, String>> lines = out.toString(StandardCharsets.UTF_8).lines().map(ResultLine::parse)
                .filter(Objects::nonNull).toList();
        assertThat(lines).extracting(l -> l.get("bench") + "/" + l.getOrDefault("threads", ""))
                .containsExactly("version/", "distinct/1", "distinct/2", "contended/2");
        assertThat(lines.get(0).get("version")).matches("3\\.52\\.\\d+");
        for (Map<String, String> line : lines.subList(1, lines.size())) {
            assertThat(Double.parseDouble(line.get("per_s"))).as(line.toString()).isPositive();
            assertThat(Double.parseDouble(line.get("p99_us"))).as(line.toString())
                    .isGreaterThanOrEqualTo(Double.parseDouble(line.get("p50_us")));
        }
    }

    @Test
    void rejectsBadOptions() {
        assertThatThrownBy(() -> RedissonPeer.Options.parse(new String[] {"--threads", "1"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--redis");
        assertThatThrownBy(() -> RedissonPeer.Options.parse(new String[] {"--redis", "redis://x:1", "--seconds", "0"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--seconds");
        assertThatThrownBy(() -> RedissonPeer.Options.parse(new String[] {"--bogus", "1"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown option");
    }
}
