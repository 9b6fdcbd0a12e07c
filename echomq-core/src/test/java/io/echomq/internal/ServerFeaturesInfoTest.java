package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The product and version come from what each server says in {@code INFO server} (excerpts as the
 * three servers CI runs print them), not from {@code redis_version} alone.
 */
class ServerFeaturesInfoTest {

    @Test
    void redis62And70HaveNoServerNameAndAreRedis() {
        String redis62 = "# Server\r\nredis_version:6.2.11\r\nredis_git_sha1:00000000\r\nredis_mode:standalone\r\n";
        String redis70 = "# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:00000000\r\nredis_mode:standalone\r\n";
        assertThat(ServerFeatures.of(redis62, false).describe()).isEqualTo("Redis 6.2.11 (SPUBLISH: no)");
        assertThat(ServerFeatures.of(redis70, true).describe()).isEqualTo("Redis 7.0.15 (SPUBLISH: yes)");
    }

    @Test
    void valkeyIsNamedByServerNameWithItsOwnVersionNotItsRedisCompatibilityLevel() {
        String valkey80 = "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:8.0.1\r\n"
                + "redis_git_sha1:00000000\r\nserver_mode:standalone\r\n";
        ServerFeatures f = ServerFeatures.of(valkey80, true);
        assertThat(f.product()).isEqualTo("Valkey");
        assertThat(f.version()).isEqualTo("8.0.1");
        assertThat(f.describe()).isEqualTo("Valkey 8.0.1 (SPUBLISH: yes)");
    }

    @Test
    void aServerThatGivesNoVersionIsShownAsUnknown() {
        assertThat(ServerFeatures.of("# Server\r\n", false).describe()).isEqualTo("Redis unknown (SPUBLISH: no)");
        assertThat(ServerFeatures.of("server_name:valkey\r\n", true).describe())
                .isEqualTo("Valkey unknown (SPUBLISH: yes)");
    }
}
