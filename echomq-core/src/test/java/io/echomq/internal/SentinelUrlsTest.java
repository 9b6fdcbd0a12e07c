package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SentinelUrls}: the Sentinel URL form, parsed without a server; every refusal says why and hides passwords. */
class SentinelUrlsTest {

    private static RedisCredentials credentials(RedisURI uri) {
        return uri.getCredentialsProvider().resolveCredentials().block();
    }

    @Test
    void theSentinelsTheMasterTheDatabaseAndBothPasswordsArePlaced() {
        RedisURI uri = SentinelUrls.parse(
                "redis-sentinel://app:p%40ss@10.0.0.1:26380,10.0.0.2/3?sentinelPassword=s%26cret#mymaster");
        assertThat(uri.getSentinelMasterId()).isEqualTo("mymaster");
        assertThat(uri.getDatabase()).isEqualTo(3);
        assertThat(uri.isSsl()).isFalse();
        assertThat(uri.getSentinels()).extracting(RedisURI::getHost, RedisURI::getPort)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("10.0.0.1", 26380),
                        org.assertj.core.groups.Tuple.tuple("10.0.0.2", 26379));
        assertThat(credentials(uri).getUsername()).isEqualTo("app");
        assertThat(new String(credentials(uri).getPassword())).isEqualTo("p@ss");
        for (RedisURI sentinel : uri.getSentinels()) {
            assertThat(new String(credentials(sentinel).getPassword())).isEqualTo("s&cret");
        }
    }

    @Test
    void aSentinelUsernameGoesWithTheSentinelsPasswordAndNotToTheDataNodes() {
        RedisURI uri = SentinelUrls.parse(
                "redis-sentinel://:p%40ss@s1,s2?sentinelUsername=ops%20team&sentinelPassword=s%26cret#m");
        for (RedisURI sentinel : uri.getSentinels()) {
            assertThat(credentials(sentinel).getUsername()).isEqualTo("ops team");
            assertThat(new String(credentials(sentinel).getPassword())).isEqualTo("s&cret");
        }
        assertThat(credentials(uri).getUsername()).isNull();
        assertThat(new String(credentials(uri).getPassword())).isEqualTo("p@ss");
        assertThat(credentials(SentinelUrls.parse("redis-sentinel://s1?sentinelPassword=x&sentinelUsername=ops#m")
                .getSentinels().get(0)).getUsername()).as("in either order").isEqualTo("ops");
        assertThatThrownBy(() -> SentinelUrls.parse("redis-sentinel://s1?sentinelUsername=ops#m"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sentinelUsername needs sentinelPassword");
    }

    @Test
    void aMastersNameIsPercentDecoded() {
        assertThat(SentinelUrls.parse("redis-sentinel://s1#my%20master%231").getSentinelMasterId())
                .isEqualTo("my master#1");
    }

    @Test
    void tlsReachesTheSentinelsAndWithoutPasswordsNoneIsSent() {
        RedisURI uri = SentinelUrls.parse("rediss-sentinel://s1#m");
        assertThat(uri.isSsl()).isTrue();
        assertThat(uri.getSentinels()).allMatch(RedisURI::isSsl);
        assertThat(credentials(uri).hasPassword()).isFalse();
        assertThat(credentials(uri.getSentinels().get(0)).hasPassword()).isFalse();
        assertThat(RedisUrls.parseAny("redis-sentinel://s1:1,s2:2#m")).hasSize(1);
    }

    @Test
    void badUrlsAreRefusedWithTheReasonAndNoPassword() {
        for (List<String> c : List.of(
                List.of("redis-sentinel://app:hunter2@s1:26379", "no master name"),
                List.of("redis-sentinel://app:hunter2@s1:26379#", "no master name"),
                List.of("redis-sentinel://app:hunter2@s1,,s2#m", "empty sentinel host"),
                List.of("redis-sentinel://app:hunter2@s1:99999#m", "outside 1..65535"),
                List.of("redis-sentinel://app:hunter2@#m", "no sentinel host"),
                List.of("redis-sentinel://app:hunter2@s1/x#m", "database number"),
                List.of("redis-sentinel://app:hunter2@s1?timeout=1s#m", "unknown query parameter 'timeout'"),
                List.of("redis://app:hunter2@s1#m", "scheme must be redis-sentinel://"))) {
            assertThatThrownBy(() -> SentinelUrls.parse(c.get(0)))
                    .as(c.get(0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(c.get(1))
                    .hasMessageContaining("expected redis-sentinel://")
                    .hasMessageNotContaining("hunter2");
        }
        assertThatThrownBy(() -> SentinelUrls.parse("redis-sentinel://s1?sentinelPassword=hunter2"))
                .hasMessageContaining("no master name").hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> SentinelUrls.parse(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be empty");
    }

    @Test
    void certificatesAreTakenForATlsSentinelUrlOnly() {
        java.nio.file.Path pem = java.nio.file.Path.of("ca.pem");
        TlsTrust.checkScheme("rediss-sentinel://s1#m", pem);
        assertThatThrownBy(() -> TlsTrust.checkScheme("redis-sentinel://s1#m", pem))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rediss-sentinel://");
    }
}
