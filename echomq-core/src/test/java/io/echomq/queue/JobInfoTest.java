package io.echomq.queue;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link JobInfo}'s typed accessors decode the hash as the protocol defines it, and it prints as text. */
@Timeout(60)
class JobInfoTest extends SemanticsTestBase {

    @Test
    void aFreshJobHasTheProtocolDefaults() {
        String id = queue.enqueue("hello");
        JobInfo info = queue.inspect(id).orElseThrow();
        assertThat(info.state()).isEqualTo("pending");
        assertThat(info.attempts()).isZero();
        assertThat(info.spent()).isZero();
        assertThat(info.maxAttempts()).isEqualTo(3);
        assertThat(info.lastError()).isEmpty();
        assertThat(info.deadReason()).isEmpty();
        assertThat(info.payloadUtf8()).isEqualTo("hello");
        assertThat(info.toString()).matches("JobInfo\\[id=" + id + ", state=pending, attempts=0, payload=hello, created_at=\\d{13}]");
    }

    @Test
    void afterAFailureToDeadTheAccessorsReadTheTriesAndTheReasons() {
        String id = queue.enqueue("x", EnqueueOptions.defaults().withMaxAttempts(1)).id();
        Job job = queue.claim(LONG_LEASE).orElseThrow();
        assertThat(job.fail("smtp refused\nsecond line")).isEqualTo(SettleOutcome.DEAD);
        JobInfo info = queue.inspect(id).orElseThrow();
        assertThat(info.state()).isEqualTo("dead");
        assertThat(info.attempts()).isEqualTo(1);          // granted: the fence
        assertThat(info.spent()).isEqualTo(1);             // counted against max_attempts
        assertThat(info.maxAttempts()).isEqualTo(1);
        assertThat(info.lastError()).contains("smtp refused\nsecond line");
        assertThat(info.deadReason()).hasValueSatisfying(r -> assertThat(r).contains("attempt 1 of 1"));
        assertThat(info.toString()).contains("last_error=smtp refused\\nsecond line").doesNotContain("[B@");
    }

    @Test
    void aGracefulReturnGivesTheSpentAttemptBackButNotTheFence() {
        String id = queue.enqueue("y");
        queue.claim(LONG_LEASE).orElseThrow().returnLease();
        JobInfo info = queue.inspect(id).orElseThrow();
        assertThat(info.attempts()).isEqualTo(1);
        assertThat(info.spent()).isZero();
    }

    @Test
    void aBinaryPayloadPrintsAsHex() {
        byte[] raw = {0, (byte) 0xff, 10, 65};
        String id = queue.enqueue(raw);
        JobInfo info = queue.inspect(id).orElseThrow();
        assertThat(info.payload()).containsExactly(raw);
        assertThat(info.toString()).contains("payload=0x00ff0a41");
        assertThat(new String(info.payload(), StandardCharsets.ISO_8859_1)).hasSize(4);
    }
}
