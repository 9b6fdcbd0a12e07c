package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Holder labels ({@link LockClient.Builder#holderLabel}) and the operator's guarded takeover
 * ({@link LockClient#takeover}, {@code takeover-2.lua}) against a real server.
 */
class TakeoverTest extends LockTestBase {
    private static final String LABEL = "web-1.example:4242:billing";

    @Test
    void aLabelledHolderShowsItsLabelAndItsLastRenewal() {
        LockClient labelled = client(b -> b.holderLabel(LABEL));
        Lease lease = labelled.tryAcquire("nightly-billing", Duration.ofSeconds(30)).orElseThrow();

        assertThat(lease.token()).matches("[0-9a-f]{32}\\+30000\\+" + java.util.regex.Pattern.quote(LABEL));
        assertThat(get(labelled.lockKey("nightly-billing"))).isEqualTo(lease.token());
        LockInfo info = locks.inspect("nightly-billing");
        assertThat(info.holderLabel()).contains(LABEL);
        assertThat(info.holderToken()).contains(lease.token());
        // the time since the grant grows as the ttl runs down, and a renewal sets it back
        await().atMost(Duration.ofSeconds(10)).until(() ->
                locks.inspect("nightly-billing").lastRenewalAgo().orElseThrow().toMillis() >= 300);
        assertThat(lease.renew()).isEqualTo(RenewOutcome.RENEWED);
        assertThat(locks.inspect("nightly-billing").lastRenewalAgo().orElseThrow()).isLessThan(Duration.ofMillis(300));
        assertThat(lease.release()).isEqualTo(ReleaseOutcome.RELEASED);
        assertThat(locks.inspect("nightly-billing").holderLabel()).isEmpty();
    }

    @Test
    void anUnlabelledOrForeignValueHasNoLabelAndNoLastRenewal() {
        Lease plain = locks.tryAcquire("plain", Duration.ofSeconds(30)).orElseThrow();
        assertThat(plain.token()).matches("[0-9a-f]{32}");
        assertThat(locks.inspect("plain").holderLabel()).isEmpty();
        assertThat(locks.inspect("plain").lastRenewalAgo()).isEmpty();

        raw().call("SET", locks.lockKey("foreign"), "some+other+value!", "PX", "30000");
        LockInfo foreign = locks.inspect("foreign");
        assertThat(foreign.holderToken()).contains("some+other+value!");
        assertThat(foreign.holderLabel()).isEmpty();
        assertThat(foreign.lastRenewalAgo()).isEmpty();
        assertThat(locks.release("foreign", "some+other+value!")).isEqualTo(ReleaseOutcome.RELEASED);
    }

    @Test
    void aBadLabelIsRefusedWithItsRule() {
        for (String bad : new String[] {"", "has space", "a+b", "x".repeat(LockInfo.MAX_LABEL + 1)}) {
            assertThatThrownBy(() -> LockClient.builder().holderLabel(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("holderLabel must be 1 to " + LockInfo.MAX_LABEL);
        }
        LockClient.builder().holderLabel("x".repeat(LockInfo.MAX_LABEL)).holderLabel(null);
    }

    @Test
    void aTakeoverMovesALiveHolderAndItsFenceStopsTheOldHoldersWrites() {
        LockClient holderClient = client(b -> b.holderLabel("worker-7:99:billing"));
        Lease old = holderClient.tryAcquire("nightly-billing", Duration.ofSeconds(3),
                AcquireOptions.defaults().withWatchdog()).orElseThrow();
        FencedStore store = holderClient.fencedStore();
        assertThat(store.write("invoices", old.fence(), "old-1")).isEqualTo(FencedWriteOutcome.WRITTEN);
        LockInfo seen = locks.inspect("nightly-billing");
        // the watchdog renews at ttl/3: wait for a renewal, which keeps the token the operator saw
        long until = old.validUntilNanos();
        await().atMost(Duration.ofSeconds(10)).until(() -> old.validUntilNanos() > until);

        LockClient operator = client(b -> b.holderLabel("ops:1:emq"));
        Lease taken = operator.takeover("nightly-billing", seen.holderToken().orElseThrow().substring(0, 8),
                seen.lastFence(), Duration.ofSeconds(30)).orElseThrow();

        assertThat(taken.fence()).isGreaterThan(old.fence());
        assertThat(get(locks.lockKey("nightly-billing"))).isEqualTo(taken.token());
        assertThat(locks.inspect("nightly-billing").holderLabel()).contains("ops:1:emq");
        assertThat(operator.fencedStore().write("invoices", taken.fence(), "new-1")).isEqualTo(FencedWriteOutcome.WRITTEN);
        // the old holder still runs: its fenced write is refused, its renewal and release fail cleanly
        assertThat(store.write("invoices", old.fence(), "old-2")).isEqualTo(FencedWriteOutcome.STALE);
        assertThat(store.read("invoices").orElseThrow().value()).isEqualTo("new-1");
        await().atMost(Duration.ofSeconds(10)).until(old::isLost);
        assertThat(old.renew()).isEqualTo(RenewOutcome.NOT_OWNER);
        assertThat(old.release()).isEqualTo(ReleaseOutcome.NOT_OWNER);
        assertThat(get(locks.lockKey("nightly-billing"))).isEqualTo(taken.token());
        assertThat(taken.release()).isEqualTo(ReleaseOutcome.RELEASED);
    }

    @Test
    void aTakeoverIsRefusedWhenTheHolderOrTheFenceChangedOrNobodyHoldsIt() {
        Lease first = locks.tryAcquire("r", Duration.ofSeconds(30)).orElseThrow();
        LockInfo seen = locks.inspect("r");
        String prefix = seen.holderToken().orElseThrow().substring(0, 8);
        assertThat(first.release()).isEqualTo(ReleaseOutcome.RELEASED);

        assertThat(locks.takeover("r", prefix, 0, Duration.ofSeconds(30))).isEmpty();   // free
        assertThat(get(locks.lockKey("r"))).isNull();

        Lease second = locks.tryAcquire("r", Duration.ofSeconds(30)).orElseThrow();
        assertThat(locks.takeover("r", prefix, seen.lastFence(), Duration.ofSeconds(30))).isEmpty();   // another holder
        String secondPrefix = second.token().substring(0, 8);
        assertThat(locks.takeover("r", secondPrefix, seen.lastFence(), Duration.ofSeconds(30))).isEmpty();   // its fence moved
        assertThat(get(locks.lockKey("r"))).isEqualTo(second.token());
        assertThat(get(locks.fenceKey("r"))).isEqualTo(Long.toString(second.fence()));

        Optional<Lease> taken = locks.takeover("r", second.token(), second.fence(), Duration.ofSeconds(30));
        assertThat(taken).isPresent();
        assertThat(taken.get().fence()).isGreaterThan(second.fence());
    }

    @Test
    void aTakeoverNeedsAPrefixOfEightCharacters() {
        assertThatThrownBy(() -> locks.takeover("r", "abcdefg", 0, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 8 characters");
        assertThatThrownBy(() -> locks.takeover("r", "abcdefgh", -1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expectedFence");
    }
}
