package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RedisUrlsTest {

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "http://localhost:6379", "localhost:6379", "redis://", "redis://:99999",
            "redis://host:0", "redis://host:notaport", "redis//host"})
    void malformedUrlsAreRejectedWithAClearMessage(String url) {
        assertThatThrownBy(() -> RedisUrls.parse(url))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Redis URL");
    }

    @Test
    void nullIsRejected() {
        assertThatThrownBy(() -> RedisUrls.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void goodUrlsParse() {
        assertThat(RedisUrls.parse("redis://127.0.0.1:6380/2").getPort()).isEqualTo(6380);
        assertThat(RedisUrls.parse("rediss://example:6379").isSsl()).isTrue();
        assertThat(RedisUrls.parse("redis://localhost").getPort()).isEqualTo(6379);
    }

    @Test
    void passwordsNeverAppearInErrors() {
        assertThatThrownBy(() -> RedisUrls.parse("redis://user:s3cret@host:99999"))
                .isInstanceOf(IllegalArgumentException.class)
                .message().doesNotContain("s3cret");
        assertThat(RedisUrls.redact("redis://user:s3cret@host:1")).isEqualTo("redis://***@host:1");
    }
}
