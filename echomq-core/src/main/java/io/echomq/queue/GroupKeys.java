package io.echomq.queue;

import java.util.regex.Pattern;

/**
 * The rule of a fair group's key ({@link EnqueueOptions#withGroup}, {@link FairGroups}), stated
 * once for Java; {@code includes/groups.lua}'s {@code groupValid} states the same for the scripts.
 *
 * <p>A key is 1 to {@link #MAX_LENGTH} characters of {@code A-Z a-z 0-9 . _ - @ + = / #}
 * ({@link #check}). A group's jobs wait in the LIST {@code emq:{q}:g:<group>}: with no {@code :},
 * brace, space, glob or control character, that name can never alias another key of the queue,
 * leave its hash slot, or match more than itself in a {@code SCAN}. The encoding of a call's group
 * keys is the enqueue's ({@code Enqueuer}).
 */
public final class GroupKeys {
    /** Most characters a group key may have. */
    public static final int MAX_LENGTH = 128;

    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9._@+=/#-]{1," + MAX_LENGTH + "}");

    private GroupKeys() {
    }

    /**
     * @return {@code group}, when it is a valid group key
     * @throws IllegalArgumentException unless it is 1..128 of {@code A-Z a-z 0-9 . _ - @ + = / #}
     */
    public static String check(String group) {
        if (group == null || !KEY.matcher(group).matches()) {
            throw new IllegalArgumentException("a group key is 1.." + MAX_LENGTH
                    + " of A-Z a-z 0-9 . _ - @ + = / # (no ':', brace, space or glob character); was "
                    + (group == null ? "null" : "'" + group + "'"));
        }
        return group;
    }
}
