package io.echomq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The public naming rules are the clients' own: each refusal names the rule broken. */
class NamesTest {

    @Test
    void everyNameIsNonEmptyWellFormedAndBounded() {
        assertThat(Names.check("ok", "consumer")).isEqualTo("ok");
        assertThatThrownBy(() -> Names.check("", "consumer")).hasMessageContaining("consumer must not be null or empty");
        assertThatThrownBy(() -> Names.check("a\uD800", "consumer")).hasMessageContaining("unpaired surrogate");
        assertThatThrownBy(() -> Names.check("x".repeat(Names.MAX_BYTES + 1), "consumer"))
                .hasMessageContaining("the maximum is " + Names.MAX_BYTES);
        assertThat(Names.check("é".repeat(Names.MAX_BYTES / 2), "consumer")).hasSize(Names.MAX_BYTES / 2);
    }

    @Test
    void aLockResourceHoldsNoBrace() {
        assertThat(Names.lockResource("orders")).isEqualTo("orders");
        assertThatThrownBy(() -> Names.lockResource("a}b")).hasMessageContaining("must not contain '{' or '}'");
    }

    @Test
    void aQueueNameDoesNotLookLikeAPartition() {
        assertThat(Names.queue("emails#x")).isEqualTo("emails#x");
        assertThatThrownBy(() -> Names.queue("emails#3")).hasMessageContaining("names a partition");
    }

    @Test
    void aPartitionsNameFollowsTheQueueRuleButNotTheUsersSuffixRule() {
        assertThat(Names.queueOrPartition("emails#3")).isEqualTo("emails#3");
        assertThatThrownBy(() -> Names.queueOrPartition("a b")).hasMessageContaining("whitespace");
        assertThatThrownBy(() -> Names.queueOrPartition("{a}")).hasMessageContaining("'{'");
        assertThatThrownBy(() -> Names.queueOrPartition("q".repeat(Names.MAX_QUEUE_BYTES + 1)))
                .hasMessageContaining("the maximum is " + Names.MAX_QUEUE_BYTES + " bytes");
        assertThatThrownBy(() -> Names.queue("a b")).as("the user's rule includes it")
                .hasMessageContaining("whitespace");
    }

    @Test
    void aJobIdHoldsNoColon() {
        assertThat(Names.jobId("42")).isEqualTo("42");
        assertThatThrownBy(() -> Names.jobId("7:lock")).hasMessageContaining("must not contain ':'");
    }
}
