package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.util.List;
import io.echomq.testkit.Garbage;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keys built from user input stay under their prefix and in their hash slot, whatever the input:
 * for every resource, queue name and job id the checks accept, the key has exactly the intended
 * hash tag (Redis Cluster's rule: the text between the first '{' and the first '}' after it, when
 * not empty), and no two inputs name the same key. Every other input is refused with an
 * {@link IllegalArgumentException}.
 */
class KeyNamespacePropertyTest {
    /** Cases per property: enough to hit every kind of hostile input several times, in well under a second. */
    private static final int CASES = 300;

    static Stream<String> names() {
        return Garbage.cases(CASES, Garbage::string);
    }

    static Stream<Arguments> pairs() {
        return Garbage.cases(CASES, g -> Arguments.of(g.string(), g.oneOf(g.string(), g.mixed(6), "7:lock", "a")));
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("names")
    void lockKeysKeepTheResourceAsTheirOnlyHashTag(String resource) {
        LockKeys keys = new LockKeys(LockKeys.DEFAULT_NAMESPACE);
        String checked;
        try {
            checked = Checks.resource(resource);
        } catch (IllegalArgumentException refused) {
            assertThat(refused.getMessage()).containsAnyOf("resource must not", "resource is", "resource holds");
            assertThat(resource.isEmpty() || hasBrace(resource) || utf8(resource).length > Checks.MAX_NAME_BYTES
                    || !wellFormed(resource)).as("%s refused for a reason it states", Garbage.show(resource)).isTrue();
            return;
        }
        for (String key : List.of(keys.lock(checked), keys.fence(checked), keys.channel(checked))) {
            assertThat(key).startsWith(LockKeys.DEFAULT_NAMESPACE + "{");
            assertThat(hashTag(key)).as("tag of %s", Garbage.show(key)).isEqualTo(resource);
            assertThat(SlotHash.getSlot(key)).isEqualTo(SlotHash.getSlot("{" + resource + "}"));
        }
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("pairs")
    void distinctResourcesNeverShareALockKey(String a, String b) {
        LockKeys keys = new LockKeys("");
        if (!valid(() -> Checks.resource(a)) || !valid(() -> Checks.resource(b)) || a.equals(b)) {
            return;
        }
        assertThat(utf8(keys.lock(a))).isNotEqualTo(utf8(keys.lock(b)));
        assertThat(keys.lock(a)).isNotEqualTo(keys.fence(b)).isNotEqualTo(keys.channel(b));
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("pairs")
    void queueKeysKeepTheQueueAsTheirOnlyHashTag(String name, String id) {
        QueueKeys keys;
        try {
            keys = QueueKeys.of(name);
        } catch (IllegalArgumentException refused) {
            assertThat(name.isEmpty() || hasBrace(name) || !wellFormed(name)
                    || name.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))
                    || utf8(name).length > QueueKeys.MAX_QUEUE_NAME_BYTES).as("refused %s", Garbage.show(name)).isTrue();
            return;
        }
        String prefix = QueueKeys.NAMESPACE + "{" + name + "}:";
        assertThat(keys.prefix()).isEqualTo(prefix);
        int slot = SlotHash.getSlot("{" + name + "}");
        for (String key : List.of(keys.pending(), keys.active(), keys.delayed(), keys.dead(), keys.seq(),
                keys.stats(), keys.wake())) {
            assertThat(key).startsWith(prefix);
            assertThat(hashTag(key)).isEqualTo(name);
            assertThat(SlotHash.getSlot(key)).isEqualTo(slot);
        }
        if (valid(() -> Checks.jobId(id))) {
            // ids are free text after the prefix: even '{' or '}' cannot move the tag, which closes earlier
            assertThat(hashTag(keys.job(id))).isEqualTo(name);
            assertThat(SlotHash.getSlot(keys.lock(id))).isEqualTo(slot);
            assertThat(keys.job(id)).startsWith(prefix + "job:");
        } else {
            assertThatThrownBy(() -> Checks.jobId(id)).isInstanceOf(IllegalArgumentException.class);
            assertThat(id.isEmpty() || id.indexOf(':') >= 0 || !wellFormed(id)
                    || utf8(id).length > Checks.MAX_NAME_BYTES).as("refused id %s", Garbage.show(id)).isTrue();
        }
    }

    @ParameterizedTest(name = "{index}")
    @MethodSource("pairs")
    void noAcceptedJobIdNamesAnotherJobsKeys(String a, String b) {
        QueueKeys keys = QueueKeys.of("q");
        if (!valid(() -> Checks.jobId(a)) || !valid(() -> Checks.jobId(b))) {
            return;
        }
        assertThat(keys.job(a)).isNotEqualTo(keys.lock(b));
        if (!a.equals(b)) {
            assertThat(keys.job(a)).isNotEqualTo(keys.job(b));
            assertThat(keys.lock(a)).isNotEqualTo(keys.lock(b));
        }
        assertThat(List.of(keys.pending(), keys.active(), keys.delayed(), keys.dead(), keys.seq(), keys.stats(),
                keys.wake())).doesNotContain(keys.job(a), keys.lock(a));
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

    private static boolean hasBrace(String s) {
        return s.indexOf('{') >= 0 || s.indexOf('}') >= 0;
    }

    private static boolean wellFormed(String s) {
        return s.equals(new String(utf8(s), StandardCharsets.UTF_8));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static boolean valid(Runnable check) {
        try {
            check.run();
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
