package io.echomq;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.internal.RedisUrls;
import org.junit.jupiter.api.Test;

/** The public URL rules: schemes, cluster detection and the one redaction rule every message uses. */
class RedisUrlTest {

    @Test
    void redactHidesUserAndPasswordUpToTheLastAt() {
        assertThat(RedisUrl.redact("redis://app:s3cr%40t@h:6379/2")).isEqualTo("redis://***@h:6379/2");
        assertThat(RedisUrl.redact("redis://:p@ss@h")).isEqualTo("redis://***@h");
        assertThat(RedisUrl.redact("redis-cluster://u:pw@a:1,b:2")).isEqualTo("redis-cluster://***@a:1,b:2");
        assertThat(RedisUrl.redact("redis:/:pw@h")).isEqualTo("redis:/***@h");
        assertThat(RedisUrl.redact("user:pw@h")).isEqualTo("user:***@h");   // "user:" reads as a scheme
        assertThat(RedisUrl.redact("redis://h:6379")).isEqualTo("redis://h:6379");
    }

    @Test
    void redactInHidesTheUserInfoWhereverAMessageQuotesIt() {
        String url = "redis://a:b:pw secret@h st:1";
        String message = "Cannot parse 'a:b:pw secret@h st:1' from " + url;
        assertThat(RedisUrl.redactIn(message, url)).doesNotContain("secret").doesNotContain("pw")
                .contains("***");
        assertThat(RedisUrl.redactIn(null, url)).isNull();
    }

    @Test
    void redactAllHidesEveryRedisUrlInFreeText() {
        String text = "Unmatched argument 'REDIS://u:pw1@h:1' and rediss-cluster://:pw2@a:1,b:2 and redis-socket://x:pw3@/s";
        assertThat(RedisUrl.redactAll(text)).doesNotContain("pw1").doesNotContain("pw2").doesNotContain("pw3")
                .contains("REDIS://***@h:1").contains("rediss-cluster://***@a:1,b:2");
        assertThat(RedisUrl.redactAll("no url here: a@b")).isEqualTo("no url here: a@b");
    }

    @Test
    void clusterUrlsAreToldApartAndEverySchemeIsListed() {
        assertThat(RedisUrl.isCluster(" REDISS-CLUSTER://h:1")).isTrue();
        assertThat(RedisUrl.isCluster("redis://h:1")).isFalse();
        assertThat(RedisUrl.isCluster(null)).isFalse();
        assertThat(RedisUrl.SCHEMES).containsExactly("redis://", "rediss://", "redis-socket://", "redis-cluster://",
                "rediss-cluster://", "redis-sentinel://", "rediss-sentinel://");
    }

    @Test
    void sentinelUrlsAreToldApartAndTheirSentinelPasswordIsHidden() {
        assertThat(RedisUrl.isSentinel(" REDISS-SENTINEL://h:1#m")).isTrue();
        assertThat(RedisUrl.isSentinel("redis-cluster://h:1")).isFalse();
        assertThat(RedisUrl.isSentinel(null)).isFalse();
        assertThat(RedisUrl.isCluster("redis-sentinel://h:1#m")).isFalse();
        String url = "redis-sentinel://app:hunter2@s1:26379,s2?sentinelPassword=s3cret#mymaster";
        assertThat(RedisUrl.redact(url)).isEqualTo("redis-sentinel://***@s1:26379,s2?sentinelPassword=***#mymaster");
        assertThat(RedisUrl.redactAll("bad: " + url + " there")).doesNotContain("hunter2", "s3cret");
        assertThat(RedisUrl.redactIn("NOAUTH s3cret and app:hunter2", url)).isEqualTo("NOAUTH *** and ***");
    }

    @Test
    void theParserRedactsWithTheSameRule() {
        String url = "redis://user:hunter2@[::1:99999";
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> RedisUrls.parse(url)))
                .isInstanceOf(IllegalArgumentException.class)
                .message().doesNotContain("hunter2").contains(RedisUrl.redact(url));
    }
}
