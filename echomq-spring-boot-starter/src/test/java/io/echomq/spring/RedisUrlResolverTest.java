package io.echomq.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** Which URL the clients get, and which property a bad one is reported against. */
class RedisUrlResolverTest {

    private static RedisUrlResolver.Resolved resolve(String ownUrl, MockEnvironment env) {
        EchoMQProperties p = new EchoMQProperties();
        p.getRedis().setUrl(ownUrl);
        return RedisUrlResolver.resolve(p, env);
    }

    @Test
    void ownUrlWinsOverSpringDataRedis() {
        MockEnvironment env = new MockEnvironment().withProperty("spring.data.redis.url", "redis://other:1");
        assertThat(resolve("redis-cluster://a:1,b:2", env))
                .isEqualTo(new RedisUrlResolver.Resolved("redis-cluster://a:1,b:2", "echomq.redis.url"));
    }

    @Test
    void springDataRedisUrlIsTakenAsIs() {
        MockEnvironment env = new MockEnvironment().withProperty("spring.data.redis.url", "rediss://u:p@h:7000/2");
        assertThat(resolve(null, env)).isEqualTo(new RedisUrlResolver.Resolved("rediss://u:p@h:7000/2", "spring.data.redis.url"));
    }

    @Test
    void hostPortCredentialsDatabaseAndSslMakeAUrl() {
        MockEnvironment env = new MockEnvironment()
                .withProperty("spring.data.redis.host", "cache.local")
                .withProperty("spring.data.redis.port", "6380")
                .withProperty("spring.data.redis.username", "app")
                .withProperty("spring.data.redis.password", "p@ss word")
                .withProperty("spring.data.redis.database", "3")
                .withProperty("spring.data.redis.ssl.enabled", "true");
        assertThat(resolve(null, env).url()).isEqualTo("rediss://app:p%40ss%20word@cache.local:6380/3");
    }

    @Test
    void nothingConfiguredMeansLocalhost() {
        assertThat(resolve(null, new MockEnvironment()))
                .isEqualTo(new RedisUrlResolver.Resolved("redis://localhost:6379", "spring.data.redis.host"));
    }

    @Test
    void clusterNodesMakeAClusterUrl() {
        MockEnvironment env = new MockEnvironment()
                .withProperty("spring.data.redis.cluster.nodes", "n1:7000,n2:7001")
                .withProperty("spring.data.redis.password", "pw");
        assertThat(resolve(null, env))
                .isEqualTo(new RedisUrlResolver.Resolved("redis-cluster://:pw@n1:7000,n2:7001", "spring.data.redis.cluster.nodes"));
    }

    @Test
    void sentinelSettingsMakeASentinelUrlWithBothPasswords() {
        MockEnvironment env = new MockEnvironment()
                .withProperty("spring.data.redis.sentinel.master", "my master")
                .withProperty("spring.data.redis.sentinel.nodes", "s1:26379, s2:26380")
                .withProperty("spring.data.redis.sentinel.password", "s&cret")
                .withProperty("spring.data.redis.password", "p@ss")
                .withProperty("spring.data.redis.database", "2")
                .withProperty("spring.data.redis.host", "ignored")
                .withProperty("spring.data.redis.ssl.enabled", "true");
        assertThat(resolve(null, env)).isEqualTo(new RedisUrlResolver.Resolved(
                "rediss-sentinel://:p%40ss@s1:26379,s2:26380/2?sentinelPassword=s%26cret#my%20master",
                "spring.data.redis.sentinel.nodes"));
        io.echomq.lock.LockClient.builder().redisUrl(resolve(null, env).url());   // the core takes it
    }

    @Test
    void sentinelWinsOverSpringDataRedisUrlWhoseCredentialsGoToTheDataNodes() {
        MockEnvironment env = new MockEnvironment()
                .withProperty("spring.data.redis.url", "redis://app:pw@h:1")
                .withProperty("spring.data.redis.sentinel.master", "m")
                .withProperty("spring.data.redis.sentinel.nodes", "s1");
        assertThat(resolve(null, env).url()).isEqualTo("redis-sentinel://app:pw@s1#m");
    }

    @Test
    void anIncompleteSentinelSetupNamesWhatIsMissing() {
        assertThatThrownBy(() -> resolve(null, new MockEnvironment().withProperty("spring.data.redis.sentinel.master", "m")))
                .isInstanceOfSatisfying(InvalidEchoMQPropertyException.class, e -> {
                    assertThat(e.property()).isEqualTo("spring.data.redis.sentinel.nodes");
                    assertThat(e.reason()).contains("must list the sentinels");
                });
        assertThatThrownBy(() -> resolve(null, new MockEnvironment().withProperty("spring.data.redis.sentinel.nodes", "s1")))
                .isInstanceOfSatisfying(InvalidEchoMQPropertyException.class, e -> {
                    assertThat(e.property()).isEqualTo("spring.data.redis.sentinel.master");
                    assertThat(e.reason()).contains("must name the master");
                });
        assertThatThrownBy(() -> resolve(null, new MockEnvironment().withProperty("spring.data.redis.sentinel.master", "m")
                .withProperty("spring.data.redis.sentinel.nodes", "s1")
                .withProperty("spring.data.redis.sentinel.username", "u")))
                .isInstanceOfSatisfying(InvalidEchoMQPropertyException.class, e -> {
                    assertThat(e.property()).isEqualTo("spring.data.redis.sentinel.password");
                    assertThat(e.reason()).contains("must be set with spring.data.redis.sentinel.username");
                });
    }

    @Test
    void aSentinelUsernameGoesBeforeItsPasswordInTheQuery() {
        MockEnvironment env = new MockEnvironment()
                .withProperty("spring.data.redis.sentinel.master", "m")
                .withProperty("spring.data.redis.sentinel.nodes", "s1,s2")
                .withProperty("spring.data.redis.sentinel.username", "ops team")
                .withProperty("spring.data.redis.sentinel.password", "s&cret");
        assertThat(resolve(null, env).url())
                .isEqualTo("redis-sentinel://s1,s2?sentinelUsername=ops%20team&sentinelPassword=s%26cret#m");
        io.echomq.lock.LockClient.builder().redisUrl(resolve(null, env).url());   // the core takes it
    }

    @Test
    void badNumbersNameTheirProperty() {
        assertThatThrownBy(() -> resolve(null, new MockEnvironment().withProperty("spring.data.redis.port", "63a")))
                .isInstanceOfSatisfying(InvalidEchoMQPropertyException.class,
                        e -> assertThat(e.property()).isEqualTo("spring.data.redis.port"));
    }
}
