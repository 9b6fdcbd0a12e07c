package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** redis-cluster:// and rediss-cluster:// URLs: seeds, credentials, and clear errors. */
class ClusterUrlsTest {

    @Test
    void seedsCredentialsAndTlsAreParsed() {
        List<RedisURI> seeds = RedisUrls.parseAny("redis-cluster://app:p%40ss@10.0.0.1:7000,10.0.0.2,[::1]:7002/0");
        assertThat(seeds).hasSize(3);
        assertThat(seeds).extracting(RedisURI::getHost).containsExactly("10.0.0.1", "10.0.0.2", "[::1]");   // as Lettuce keeps IPv6 hosts
        assertThat(seeds).extracting(RedisURI::getPort).containsExactly(7000, 6379, 7002);
        assertThat(seeds).allSatisfy(u -> {
            RedisCredentials c = credentials(u);
            assertThat(c.getUsername()).isEqualTo("app");
            assertThat(new String(c.getPassword())).isEqualTo("p@ss");
            assertThat(u.isSsl()).isFalse();
        });
        assertThat(RedisUrls.parseCluster("rediss-cluster://h:1")).singleElement()
                .satisfies(u -> assertThat(u.isSsl()).isTrue());
        RedisCredentials passwordOnly = credentials(RedisUrls.parseCluster("redis-cluster://secret@h:1").get(0));
        assertThat(passwordOnly.hasUsername()).isFalse();
        assertThat(new String(passwordOnly.getPassword())).isEqualTo("secret");
        assertThat(RedisUrls.isCluster(" REDIS-CLUSTER://h:1")).isTrue();
        assertThat(RedisUrls.isCluster("redis://h:1")).isFalse();
        assertThat(RedisUrls.parseAny("redis://h:1")).singleElement()
                .satisfies(u -> assertThat(u.getHost()).isEqualTo("h"));
    }

    private static RedisCredentials credentials(RedisURI uri) {
        return uri.getCredentialsProvider().resolveCredentials().block();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "redis-cluster://                    | no host",
        "redis-cluster://a:1,,b:2            | an empty host between commas",
        "redis-cluster://a:1,                | an empty host between commas",
        "redis-cluster://a:99999             | bad node 'a:99999': port 99999 is outside 1..65535",
        "redis-cluster://a:x                 | bad node 'a:x': port 'x' is not a number in 1..65535",
        "redis-cluster://a:1/2               | a cluster has only database 0",
        "redis-cluster://a:1?timeout=5       | a cluster has only database 0",
        "redis-cluster://u:pw@[::1:1         | unclosed '['",
    })
    void malformedClusterUrlsSayWhatIsWrong(String url, String why) {
        assertThatThrownBy(() -> RedisUrls.parseAny(url.trim()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Malformed Redis Cluster URL '")
                .hasMessageContaining(why)
                .hasMessageEndingWith("expected redis-cluster://[user:password@]host[:port][,host[:port]...]")
                .message().doesNotContain("pw@");
    }

    @Test
    void theDocumentedMessageIsTheRealOne() {
        assertThatThrownBy(() -> RedisUrls.parseAny("redis-cluster://a:1,,b:2"))
                .hasMessage("Malformed Redis Cluster URL 'redis-cluster://a:1,,b:2': an empty host between commas; "
                        + "expected redis-cluster://[user:password@]host[:port][,host[:port]...]");
        assertThatThrownBy(() -> RedisUrls.parseCluster("redis://a:1"))
                .hasMessageContaining("the scheme must be redis-cluster:// or rediss-cluster://");
        assertThatThrownBy(() -> RedisUrls.parseCluster(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void clientsRefuseABadClusterUrlBeforeConnecting() {
        assertThatThrownBy(() -> io.echomq.lock.LockClient.builder().redisUrl("redis-cluster://a:1,,b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty host");
        assertThatThrownBy(() -> io.echomq.queue.QueueClient.create("redis-cluster://a:0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("port 0 is outside");
    }
}
