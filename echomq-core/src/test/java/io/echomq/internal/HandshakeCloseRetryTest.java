package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.RedisCommandException;
import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import io.echomq.testkit.RedisExtension;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A connect whose failure reads only as a close during the handshake is made again, so that a refused
 * handshake (a wrong password) reads as the refusal every time, for every client of the core, not only for
 * the CLI; no other failure is tried again.
 */
class HandshakeCloseRetryTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    void onlyACloseWithNoReplyOfTheServersIsTriedAgain() {
        assertThat(EngineConnector.closedInHandshake(new RedisConnectionException("Unable to connect to 127.0.0.1:1",
                new RedisException("Connection closed prematurely")))).isTrue();
        assertThat(EngineConnector.closedInHandshake(new RedisConnectionException("Unable to connect",
                new IllegalStateException("RedisHandshakeHandler not registered")))).isTrue();
        assertThat(EngineConnector.closedInHandshake(new RedisConnectionException("Connection closed prematurely",
                new RedisException("WRONGPASS invalid username-password pair")))).as("the refusal is known").isFalse();
        assertThat(EngineConnector.closedInHandshake(new RedisConnectionException("Connection closed prematurely",
                new RedisException("NOAUTH Authentication required.")))).isFalse();
        assertThat(EngineConnector.closedInHandshake(new RedisConnectionException("Connection refused"))).isFalse();
    }

    @Test
    @Tag("standalone-only")
    void aWrongPasswordReadsAsTheRefusalEveryTime() {
        String password = "pw-" + HexFormat.of().formatHex(new SecureRandom().generateSeed(8));
        REDIS.raw().call("CONFIG", "SET", "requirepass", password);
        String wrong = "redis://:" + password + "x@127.0.0.1:" + REDIS.server().port();
        try {
            List<String> other = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                try {
                    if (i % 2 == 0) {
                        QueueClient.create(wrong).close();
                    } else {
                        LockClient.create(wrong).close();
                    }
                    other.add("connected with a wrong password");
                } catch (RedisCommandException e) {
                    String causes = causes(e);
                    if (!causes.contains("WRONGPASS")) {
                        other.add(causes);
                    }
                }
            }
            assertThat(other).as("connects that did not read as the refusal").isEmpty();
        } finally {
            REDIS.raw().call("CONFIG", "SET", "requirepass", "");
        }
    }

    private static String causes(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            all.append(t.getMessage()).append(" / ");
        }
        return all.toString();
    }
}
