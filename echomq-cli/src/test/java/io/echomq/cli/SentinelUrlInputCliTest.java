package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A malformed redis-sentinel:// URL exits 2 with the reason, before anything connects, and without its passwords. */
class SentinelUrlInputCliTest {
    @Test
    void aSentinelUrlWithoutTheMasterNameExitsTwoAndSaysSo() {
        EmqRun run = EmqRun.at("redis-sentinel://:hunter2@127.0.0.1:26379?sentinelPassword=s3cret", "queue", "stats",
                "emails");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err()).contains("Malformed Redis Sentinel URL", "no master name", "#<master>")
                .doesNotContain("hunter2", "s3cret");
    }
}
