package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.testkit.NameCases;
import io.echomq.testkit.Garbage;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keys built from user input stay under their prefix and in their hash slot, and no two accepted inputs name the
 * same key. Every input is judged first by an oracle that restates the documented rules ({@link NameCases}): the
 * checks must refuse it if and only if the oracle calls it invalid. The inputs are the rules' boundary values,
 * names valid by construction (up to the byte limits) and hostile strings, each once.
 */
class KeyNamespacePropertyTest {
    /** Generated inputs per rule, besides the listed boundaries. */
    private static final int CASES = 120;

    static Stream<String> names() {
        return NameCases.stratified(CASES, NameCases.MAX_NAME_BYTES).stream();
    }

    static Stream<String> queueNames() {
        return NameCases.stratified(CASES, NameCases.MAX_QUEUE_BYTES).stream();
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("names")
    void aResourceIsRefusedIfAndOnlyIfInvalidAndThenIsItsKeysOnlyHashTag(String resource) {
        boolean valid = NameCases.resourceValid(resource);
        if (!valid) {
            assertThatThrownBy(() -> Checks.resource(resource)).as("refuse %s", Garbage.show(resource))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("resource");
            return;
        }
        LockKeys keys = new LockKeys(LockKeys.DEFAULT_NAMESPACE);
        String checked = Checks.resource(resource);
        for (String key : List.of(keys.lock(checked), keys.fence(checked), keys.channel(checked))) {
            // Redis Cluster reads the tag from the first '{' to the next '}': it must be the whole resource
            assertThat(hashTag(key)).as("tag of %s", Garbage.show(key)).isEqualTo(resource);
            assertThat(SlotHash.getSlot(key)).isEqualTo(SlotHash.getSlot(resource));
        }
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("names")
    void aJobIdIsRefusedIfAndOnlyIfInvalid(String id) {
        if (NameCases.jobIdValid(id)) {
            assertThat(Checks.jobId(id)).isEqualTo(id);
            QueueKeys keys = QueueKeys.of("q");
            assertThat(hashTag(keys.job(id))).isEqualTo("q");
            assertThat(hashTag(keys.lock(id))).isEqualTo("q");
        } else {
            assertThatThrownBy(() -> Checks.jobId(id)).as("refuse %s", Garbage.show(id))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("job id");
        }
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("queueNames")
    void aQueueNameIsRefusedIfAndOnlyIfInvalidAndThenIsItsKeysOnlyHashTag(String name) {
        check(NameCases.queueValid(name), name, QueueKeys::of);
        check(NameCases.userQueueValid(name), name, QueueKeys::ofUserName);
        if (NameCases.queueValid(name)) {
            QueueKeys keys = QueueKeys.of(name);
            for (String key : List.of(keys.pending(), keys.active(), keys.delayed(), keys.dead(), keys.seq(),
                    keys.stats(), keys.wake(), keys.job("7"), keys.lock("7"))) {
                assertThat(hashTag(key)).as("tag of %s", Garbage.show(key)).isEqualTo(name);
            }
        }
    }

    private static void check(boolean valid, String name, Consumer<String> of) {
        if (valid) {
            of.accept(name);
        } else {
            assertThatThrownBy(() -> of.accept(name)).as("refuse %s", Garbage.show(name))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue name");
        }
    }

    /**
     * Accepted names that are near one another (a prefix, a suffix such as ":lock", one character more) never share
     * a key, across lock keys, fence keys, channels, job hashes and job locks.
     */
    @Test
    void noTwoAcceptedNamesShareAKey() {
        SplittableRandom r = new SplittableRandom(Garbage.seed());
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String base = NameCases.valid(r, 40);
            names.add(base);
            names.add(base + "x");
            names.add(base + "lock");
            names.add("lock" + base);
        }
        names.addAll(List.of("7", "7lock", "lock", "fence", "a", "aa"));
        LockKeys locks = new LockKeys("");
        QueueKeys jobs = QueueKeys.of("q");
        Map<String, String> owner = new HashMap<>();
        for (String n : names.stream().distinct().toList()) {
            List<String> keys = new ArrayList<>();
            if (NameCases.resourceValid(n)) {
                keys.addAll(List.of(locks.lock(n), locks.fence(n), locks.channel(n)));
            }
            if (NameCases.jobIdValid(n)) {
                keys.addAll(List.of(jobs.job(n), jobs.lock(n)));
            }
            assertThat(keys).as("keys of %s", Garbage.show(n)).isNotEmpty();
            for (String k : keys) {
                String before = owner.put(k, n);
                assertThat(before == null || before.equals(n)).as("%s named by %s and %s", k, before, n).isTrue();
            }
        }
        assertThat(owner.size()).isGreaterThan(1_000);
    }

    @Test
    void theKnownAliasesAreRefused() {
        assertThatThrownBy(() -> Checks.jobId("7:lock")).hasMessageContaining("':'");
        assertThatThrownBy(() -> Checks.resource("}x")).hasMessageContaining("'}'");
        assertThatThrownBy(() -> Checks.resource("a\uD800")).hasMessageContaining("unpaired surrogate");
        assertThatThrownBy(() -> QueueKeys.of("q\uDC00")).hasMessageContaining("unpaired surrogate");
    }

    /** Redis Cluster's hash tag: between the first '{' and the next '}', if not empty; else the whole key. */
    static String hashTag(String key) {
        int open = key.indexOf('{');
        if (open < 0) {
            return key;
        }
        int close = key.indexOf('}', open + 1);
        if (close < 0 || close == open + 1) {
            return key;
        }
        return key.substring(open + 1, close);
    }
}
