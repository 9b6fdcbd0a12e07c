package io.echomq.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class RedisBinaryTest {

    @Test
    void bogusOverrideGivesAClearError() {
        assertThatThrownBy(() -> RedisBinary.resolve("/no/such/redis-server", "environment variable EMQ_REDIS_SERVER"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("/no/such/redis-server")
                .hasMessageContaining("EMQ_REDIS_SERVER");
    }

    @Test
    void directoryOverrideIsRejected() {
        String tmp = System.getProperty("java.io.tmpdir");
        assertThatThrownBy(() -> RedisBinary.resolve(tmp, "environment variable EMQ_REDIS_SERVER"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not an executable file");
    }

    @Test
    void blankOrUnexpandedOverrideMeansEmbedded() {
        Path embedded = RedisBinary.resolve(null, "x");
        assertThat(embedded.getFileName().toString())
                .isEqualTo(RedisBinary.extractedName(RedisBinary.embeddedResourceName()));
        assertThat(Files.isExecutable(embedded)).isTrue();
        assertThat(RedisBinary.resolve("", "x")).isEqualTo(embedded);
        assertThat(RedisBinary.resolve("  ", "x")).isEqualTo(embedded);
        assertThat(RedisBinary.resolve("${env.EMQ_REDIS_SERVER}", "x")).isEqualTo(embedded);
    }

    @Test
    void resourceNamesPerPlatform() {
        assertThat(RedisBinary.embeddedResourceName("Linux", "amd64")).isEqualTo("redis-server-6.2.6-v5-linux-amd64");
        assertThat(RedisBinary.embeddedResourceName("Linux", "aarch64")).isEqualTo("redis-server-6.2.7-linux-arm64");
        assertThat(RedisBinary.embeddedResourceName("Mac OS X", "x86_64"))
                .isEqualTo("redis-server-6.2.6-v5-darwin-amd64");
        assertThat(RedisBinary.embeddedResourceName("Mac OS X", "aarch64"))
                .isEqualTo("redis-server-6.2.6-v5-darwin-arm64");
        assertThatThrownBy(() -> RedisBinary.embeddedResourceName("Windows 11", "amd64"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Windows 11")
                .hasMessageContaining("EMQ_REDIS_SERVER");
    }

    @Test
    void theExtractedBinaryIsNotNamedAfterAVersionItDoesNotReport() {
        assertThat(RedisBinary.extractedName("redis-server-6.2.6-v5-linux-amd64")).isEqualTo("redis-server-embedded-linux-amd64");
        assertThat(RedisBinary.extractedName("redis-server-6.2.6-v5-darwin-arm64")).isEqualTo("redis-server-embedded-darwin-arm64");
        assertThat(RedisBinary.extractedName("redis-server-6.2.7-linux-arm64")).isEqualTo("redis-server-embedded-linux-arm64");
        assertThat(RedisBinary.extractedName("something-else")).isEqualTo("something-else");
    }
}
