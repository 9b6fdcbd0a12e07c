package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** SPUBLISH is detected with COMMAND INFO, not assumed: absent on 6.2, present on 7.0. */
class ServerFeaturesTest extends LockTestBase {

    @Test
    void detectsTheServerAndItsShardedPubSub() {
        String version = REDIS.server().version();
        int major = Integer.parseInt(version.substring(0, version.indexOf('.')));
        String description = locks.serverDescription();
        System.out.println("server under test: " + description);
        assertThat(description).contains(version);
        assertThat(description).contains(major >= 7 ? "SPUBLISH: yes" : "SPUBLISH: no");
    }
}
