package io.echomq.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Finding the held locks of a namespace by SCAN, under a prefix, with their ttl and fence. */
class LockDirectoryTest extends LockTestBase {

    @Test
    void findsTheHeldLocksUnderAPrefixWithTheirTtlAndFence() {
        Lease one = locks.tryAcquire("orders:1", Duration.ofSeconds(30)).orElseThrow();
        locks.tryAcquire("orders:2", Duration.ofSeconds(30)).orElseThrow();
        locks.tryAcquire("invoices:9", Duration.ofSeconds(30)).orElseThrow();
        locks.tryAcquire("orders:released", Duration.ofSeconds(30)).orElseThrow().close();
        locks.tryAcquire("orders*", Duration.ofSeconds(30)).orElseThrow();        // a glob character, as itself
        client(b -> b.namespace("other:")).tryAcquire("orders:3", Duration.ofSeconds(30)).orElseThrow();
        raw().call("SET", "emq:{q}:job:7:lock", "x");                          // a job's lock subkey is no lock

        LockDirectory dir = LockDirectory.of(locks);
        LockDirectory.Found orders = dir.held("orders:", 100);
        assertThat(orders.complete()).isTrue();
        assertThat(orders.locks()).extracting(LockInfo::resource).containsExactlyInAnyOrder("orders:1", "orders:2");
        LockInfo first = orders.locks().stream().filter(l -> l.resource().equals("orders:1")).findFirst().orElseThrow();
        assertThat(first.lastFence()).isEqualTo(one.fence());
        assertThat(first.ttlMillis()).isBetween(1L, 30_000L);
        assertThat(first.holderToken()).hasValue(one.token());

        assertThat(dir.held("", 100).locks()).extracting(LockInfo::resource)
                .containsExactlyInAnyOrder("orders:1", "orders:2", "invoices:9", "orders*");
        assertThat(dir.held("orders*", 100).locks()).extracting(LockInfo::resource).containsExactly("orders*");
        LockDirectory.Found capped = dir.held("", 1);
        assertThat(capped.locks()).hasSize(1);
        assertThat(capped.complete()).isFalse();
    }

    @Test
    void pagesFromTheCursorNameEveryHeldLockOnceAndOnlyTheLastPageEndsTheWalk() {
        java.util.Set<String> taken = new java.util.HashSet<>();
        for (int i = 0; i < 250; i++) {
            locks.tryAcquire("orders:" + i, Duration.ofMinutes(1)).orElseThrow();
            taken.add("orders:" + i);
        }
        locks.tryAcquire("invoices:1", Duration.ofMinutes(1)).orElseThrow();
        LockDirectory dir = LockDirectory.of(locks);
        java.util.List<String> seen = new java.util.ArrayList<>();
        String cursor = "";
        int pages = 0;
        do {
            LockDirectory.Page page = dir.page("orders:", cursor, 7, Duration.ofSeconds(10));
            assertThat(page.budgetSpent()).isFalse();
            assertThat(page.scanCalls()).isPositive();
            assertThat(page.keysVisited()).isGreaterThanOrEqualTo(LockDirectory.MIN_COUNT);
            if (page.next() != null) {
                assertThat(page.locks()).as("a page that does not end the walk has its lock keys").hasSizeGreaterThanOrEqualTo(7);
            }
            page.locks().forEach(l -> seen.add(l.resource()));
            cursor = page.next();
            pages++;
        } while (cursor != null && pages < 1000);
        assertThat(cursor).as("the walk ended").isNull();
        assertThat(seen).hasSize(taken.size()).containsExactlyInAnyOrderElementsOf(taken);

        LockDirectory.Page spent = dir.page("", "", 1000, Duration.ZERO);
        assertThat(spent.scanCalls()).as("the first call is always sent").isEqualTo(1);
        assertThat(spent.budgetSpent() || spent.next() == null).isTrue();
        assertThat(dir.keyCount().orElseThrow()).as("lock and fence keys").isGreaterThanOrEqualTo(502);
    }

    @Test
    @org.junit.jupiter.api.Tag("standalone-only")   // an ACL user made on one server
    void aUserWithoutDbsizeGetsNoKeyCountButItsPages() {
        raw().call("ACL", "SETUSER", "emq-nodbsize", "on", ">nodbsize-pw", "~*", "&*", "+@all", "-dbsize");
        try {
            String url = REDIS.url().replace("redis://", "redis://emq-nodbsize:nodbsize-pw@");
            LockClient limited = client(b -> b.redisUrl(url));
            locks.tryAcquire("orders:1", Duration.ofSeconds(30)).orElseThrow();
            LockDirectory dir = LockDirectory.of(limited);
            assertThat(dir.keyCount()).isEmpty();
            assertThat(dir.page("", "", 10, Duration.ofSeconds(1)).locks()).extracting(LockInfo::resource)
                    .containsExactly("orders:1");
        } finally {
            raw().call("ACL", "DELUSER", "emq-nodbsize");
        }
    }

    @Test
    void aCursorNoPageGaveIsRefused() {
        LockDirectory dir = LockDirectory.of(locks);
        assertThatThrownBy(() -> dir.page("", "12x", 10, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> dir.page("", "0000000000000000000000000000000000000000-0", 10, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> dir.page("", "", 0, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> dir.page("", "", 10, Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void badArgumentsAreRefusedBeforeRedis() {
        LockDirectory dir = LockDirectory.of(locks);
        assertThatThrownBy(() -> dir.held("a{b", 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> dir.held(null, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> dir.held("", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> dir.held("", LockDirectory.MAX_LOCKS + 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
