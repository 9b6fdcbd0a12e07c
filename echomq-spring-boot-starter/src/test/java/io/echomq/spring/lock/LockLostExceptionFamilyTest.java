package io.echomq.spring.lock;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.LossReason;
import org.junit.jupiter.api.Test;

/**
 * The starter's {@link LockLostException} is one of the core's: a {@code catch} of the core's type,
 * of {@link IllegalMonitorStateException} or of the starter's own type sees it, with the resource,
 * the reason, the method's exception as its cause and its own message.
 */
class LockLostExceptionFamilyTest {

    @Test
    void everyCatchOfTheFamilySeesTheStartersException() {
        IllegalStateException methods = new IllegalStateException("the method's own");
        RuntimeException thrown = new LockLostException("nightly", LossReason.NOT_OWNER, methods);

        String caughtBy;
        try {
            throw thrown;
        } catch (io.echomq.lock.LockLostException e) {
            caughtBy = "core: " + e.resource() + " " + e.reason();
        }
        assertThat(caughtBy).isEqualTo("core: nightly NOT_OWNER");
        assertThat(thrown).isInstanceOf(IllegalMonitorStateException.class)
                .isInstanceOf(LockLostException.class)
                .hasCause(methods)
                .hasMessage("lost the lock on 'nightly' (NOT_OWNER) while the method ran");
    }

    @Test
    void withoutACauseThereIsNone() {
        assertThat(new LockLostException("r", LossReason.EXPIRED, null)).hasNoCause();
    }
}
