package io.echomq.internal;

import io.echomq.MissingPermissionsException;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The check a client makes once, when it is built: may its ACL user run every command its scripts
 * run? A script refused at its third command keeps what its first two wrote, so a missing
 * permission must be found before any script runs, not by the script that needs it.
 *
 * <ol>
 *   <li>The commands are read from the scripts' text ({@link ScriptCommands}); of PUBLISH and
 *       SPUBLISH, only the one the engine's {@link RedisEngine#publishMode()} sends.</li>
 *   <li>{@link Scripts#PERMISSIONS} checks them under the client's namespace, in one call that leaves
 *       nothing behind, on Redis 6.2 (which cannot ask), 7.0+ and Valkey alike.</li>
 * </ol>
 *
 * <p>Commands a client sends outside scripts are not checked here: each is one command, refused
 * whole, with its own {@code NOPERM}, and leaves nothing half done.
 */
public final class PermissionCheck {
    private static final Map<List<LuaScript>, Set<String>> READ = new ConcurrentHashMap<>();   // the scripts never change

    private PermissionCheck() {
    }

    /**
     * Refuses when the engine's user may not run a command of the queue scripts, under the queues'
     * namespace: the check of a {@code QueueClient}.
     *
     * @throws MissingPermissionsException naming the commands the user may not run
     * @throws io.echomq.RedisCommandException if the check itself fails
     */
    public static void forQueues(RedisEngine engine) {
        require(engine, QueueKeys.NAMESPACE, Scripts.queueSide());
    }

    /**
     * Refuses when the engine's user may not run a command of the lock scripts, under the lock
     * namespace {@code namespace}: the check of a {@code LockClient}.
     *
     * @throws MissingPermissionsException naming the commands the user may not run
     * @throws io.echomq.RedisCommandException if the check itself fails
     */
    public static void forLocks(RedisEngine engine, String namespace) {
        require(engine, namespace, Scripts.lockSide());
    }

    /**
     * Refuses when the engine's user may not run a command of {@code scripts}.
     *
     * @param namespace the prefix of the client's keys and channels, for example {@code "emq:"}
     * @param scripts the scripts the client runs
     * @throws MissingPermissionsException naming the commands the user may not run
     * @throws io.echomq.RedisCommandException if the check itself fails, for example when
     *     {@code EVALSHA} is refused
     */
    public static void require(RedisEngine engine, String namespace, List<LuaScript> scripts) {
        String unused = engine.publishMode().equals("SPUBLISH") ? "publish" : "spublish";
        List<String> args = new ArrayList<>();
        args.add(namespace + "{emq-permissions}:wake");
        for (String c : new TreeSet<>(commands(scripts))) {
            if (!c.equals(unused)) {
                args.add(c);
            }
        }
        List<Object> reply = RedisEngine.await(engine.<List<Object>>run(Scripts.PERMISSIONS, ScriptOutputType.MULTI,
                new String[] {namespace + "{emq-permissions}:probe"}, args.toArray(String[]::new)),
                Scripts.PERMISSIONS.label(), null);
        if (!reply.isEmpty()) {
            List<String> missing = new ArrayList<>();
            for (Object o : reply) {
                missing.add(String.valueOf(o));
            }
            missing.sort(null);
            throw new MissingPermissionsException(Scripts.PERMISSIONS.label(), namespace, missing);
        }
    }

    /** @return the commands of {@code scripts}, lowercase; both PUBLISH and SPUBLISH when they choose */
    public static Set<String> commands(List<LuaScript> scripts) {
        return READ.computeIfAbsent(scripts, s -> Set.copyOf(ScriptCommands.of(s).keySet()));
    }
}
