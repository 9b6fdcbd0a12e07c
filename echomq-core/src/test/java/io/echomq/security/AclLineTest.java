package io.echomq.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.internal.LuaScript;
import io.echomq.internal.ScriptCommands;
import io.echomq.internal.Scripts;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The documented ACL line grants every command a script can run. The commands are read from the
 * scripts' own text, every Lua file of the resources (the parts too), not from a list kept by hand,
 * so a script that starts to run a new command fails here until the page grants it.
 */
class AclLineTest {

    private static Set<String> granted() throws Exception {
        return AuthAclTest.documentedAclLine("unused").stream().filter(a -> a.startsWith("+"))
                .map(a -> a.substring(1)).collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void theDocumentedLineGrantsEveryCommandOfEveryScript() throws Exception {
        Map<String, Set<String>> needed = new TreeMap<>(ScriptCommands.of(ScriptResources.loaded()));
        for (String part : ScriptResources.parts()) {
            for (String c : ScriptCommands.of(part, ScriptResources.text(part))) {
                needed.computeIfAbsent(c, k -> new TreeSet<>()).add(part);
            }
        }
        assertThat(needed).as("commands read from the scripts").containsKeys("sadd", "srem", "sismember", "publish");
        // SPUBLISH runs only on a Redis 7+ cluster; the page grants it on a line of its own
        // (Redis 6.2 refuses a rule naming a command it does not know)
        needed.remove("spublish");
        Set<String> granted = granted();
        Map<String, Set<String>> missing = new TreeMap<>(needed);
        missing.keySet().removeAll(granted);
        assertThat(missing).as("commands the scripts run that the documented line does not grant").isEmpty();
        assertThat(AuthAclTest.docPage()).contains("ACL SETUSER emq-app +spublish");
    }

    @Test
    void everyScriptOfTheResourcesIsOneTheLibraryLoads() {
        Set<String> loaded = Scripts.all().stream().map(LuaScript::path).collect(Collectors.toCollection(TreeSet::new));
        assertThat(loaded).isEqualTo(ScriptResources.scripts());
    }

    @Test
    void commandsAreReadFromLiteralsVariablesAndChoices() {
        String lua = String.join("\n",
                "-- redis.call('FLUSHALL') in a comment is not a call",
                "local publish = 'PUBLISH'",
                "if ARGV[1] == 'SPUBLISH' then publish = 'SPUBLISH' end",
                "redis.call(publish, KEYS[1], 'x')",
                "local ok, v = pcall(redis.call, 'HGET', KEYS[1], 'f')",
                "redis.pcall(\"ZADD\", KEYS[1], 1, 'm') -- then redis.call('DEL')",
                "redis.call(ARGV[2] == 'SPUBLISH' and 'SPUBLISH' or 'PUBLISH', KEYS[1], 'y')",
                "local s = 'a -- b'; redis.call('SADD', KEYS[1], s)");
        assertThat(ScriptCommands.of("t", lua)).containsExactly("hget", "publish", "sadd", "spublish", "zadd");
    }

    @Test
    void aCallWhoseCommandCannotBeReadIsRefused() {
        for (String lua : List.of("redis.call(pick(ARGV[1]), KEYS[1])", "local c = ARGV[1]\nredis.call(c, KEYS[1])",
                "redis.call(KEYS[1])")) {
            assertThatThrownBy(() -> ScriptCommands.of("t.lua", lua)).as(lua).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("t.lua").hasMessageContaining("cannot be read");
        }
    }
}
