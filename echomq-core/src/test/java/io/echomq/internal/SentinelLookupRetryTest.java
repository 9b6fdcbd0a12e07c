package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import org.junit.jupiter.api.Test;

/**
 * Which failures of a connect through the sentinels are tried again: only a master lookup whose command Lettuce
 * rejected as "Currently not connected" (its race between a new sentinel connection and the command sent on it),
 * however deep in the causes; a lookup that timed out for real, a refused password or a refused connection are not.
 */
class SentinelLookupRetryTest {
    private static RedisCommandTimeoutException lookup(Throwable suppressed) {
        RedisCommandTimeoutException e = new RedisCommandTimeoutException(
                "Cannot obtain master using SENTINEL MASTER. Command timed out after 10 second(s)");
        e.addSuppressed(suppressed);
        return e;
    }

    @Test
    void onlyALookupRejectedBeforeItsConnectionCountedIsTriedAgain() {
        RedisException rejected = new RedisException("Currently not connected. Commands are rejected.");
        assertThat(EngineConnector.lookupRejectedBeforeConnected(lookup(rejected))).isTrue();
        assertThat(EngineConnector.lookupRejectedBeforeConnected(
                new RedisConnectionException("Unable to connect", lookup(rejected)))).as("as a cause").isTrue();
        assertThat(EngineConnector.lookupRejectedBeforeConnected(
                lookup(new java.util.concurrent.TimeoutException("Did not observe any item")))).isFalse();
        assertThat(EngineConnector.lookupRejectedBeforeConnected(
                new RedisConnectionException("WRONGPASS invalid username-password pair"))).isFalse();
        assertThat(EngineConnector.lookupRejectedBeforeConnected(rejected)).as("not a lookup").isFalse();
    }
}
