package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The commands of the hot scripts (claim and complete, lock acquire and release), read from their
 * expanded text: how the parts are shared and ordered may change, the commands these scripts can
 * run may not, since each one is a cost on every call and a right the ACL line must grant.
 */
class HotScriptCommandsTest {

    private static String commands(LuaScript s) {
        return String.join(" ", ScriptCommands.of(s.path(), s.body()));
    }

    @Test
    void theLockScriptsRunTheirCommandsAndNoOther() {
        assertThat(commands(Scripts.ACQUIRE)).isEqualTo("del get pttl set time");
        assertThat(commands(Scripts.WAIT_ACQUIRE)).isEqualTo("del get pttl set time");
        assertThat(commands(Scripts.RELEASE)).isEqualTo("del exists get publish spublish");
        assertThat(commands(Scripts.RENEW)).isEqualTo("get pexpire pttl");
        assertThat(commands(Scripts.HANDOFF)).isEqualTo("get set time");
    }

    @Test
    void theClaimAndTheCompleteRunTheirCommandsAndNoOther() {
        assertThat(commands(Scripts.CLAIM)).isEqualTo("del exists get hdel hget hincrby hmget hset incr llen lpop"
                + " lpush lrem pexpire publish rename rpush set sismember spublish time type xadd zadd zcard zcount"
                + " zmscore zrange zrangebyscore zrem zremrangebyscore zscore zunionstore");
        assertThat(commands(Scripts.COMPLETE)).isEqualTo("del exists get hdel hget hincrby hmget hset llen lpop"
                + " lpush lrem pexpire publish rename rpush set sismember spublish time type xadd zadd zcard"
                + " zmscore zrange zrangebyscore zrem zscore zunionstore");
    }

    @Test
    void theQueueDeleteRunsNoCommandOfTheGuardsItDoesNotCall() {
        assertThat(commands(Scripts.DELETE)).isEqualTo("type unlink zcard");
    }
}
