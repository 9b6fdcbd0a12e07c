package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.server.RedisCluster;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every key that one lock or one queue operation touches hashes to one cluster slot: the keys a
 * script declares, the keys it builds from its prefix argument, and the pub/sub channel it
 * publishes on. The cluster suites prove it at run time (a cross-slot script is refused there);
 * this holds it for names those suites do not use.
 */
class SingleSlotTest {

    @ParameterizedTest
    @ValueSource(strings = {"q", "emails", "a:b", "ünïcødé", "x-256-bytes-are-allowed-but-this-will-do"})
    void everyKeyOfAQueueSharesOneSlot(String name) {
        QueueKeys k = QueueKeys.of(name);
        int slot = RedisCluster.slot(k.pending());
        List<String> keys = Stream.of(List.of(k.claimKeys()), List.of(k.pending(), k.waitList(), k.active(), k.delayed(), k.dead(),
                        k.seq(), k.stats(), k.wake(), k.job("17"), k.lock("17"), k.prefix() + "idem:some-key"))
                .flatMap(List::stream).toList();
        assertThat(keys).allSatisfy(key -> assertThat(RedisCluster.slot(key)).as(key).isEqualTo(slot));
        assertThat(RedisCluster.slot(k.prefix() + "job:" + "999")).isEqualTo(slot);
    }

    @ParameterizedTest
    @ValueSource(strings = {"orders", "invoice-42", "a:b", "{inner}", "ünïcødé", "queue:q:maintenance"})
    void aLockItsFenceAndItsChannelShareOneSlot(String resource) {
        for (String ns : List.of(LockKeys.DEFAULT_NAMESPACE, "", "myapp:lock:")) {
            LockKeys k = new LockKeys(ns);
            int slot = RedisCluster.slot(k.lock(resource));
            assertThat(RedisCluster.slot(k.fence(resource))).isEqualTo(slot);
            assertThat(RedisCluster.slot(k.channel(resource))).isEqualTo(slot);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"q", "emails"})
    void theMaintenanceLockIsOneKeyOfItsOwn(String name) {
        // SET NX PX on one key: it needs no slot in common with the queue, and is not a script.
        String key = new LockKeys(LockKeys.DEFAULT_NAMESPACE).lock(QueueKeys.of(name).maintenanceResource());
        assertThat(key).isEqualTo("emq:lock:{queue:" + name + ":maintenance}:lock");
    }
}
