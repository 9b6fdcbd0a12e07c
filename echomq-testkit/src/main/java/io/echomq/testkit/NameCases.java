package io.echomq.testkit;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Pattern;

/**
 * Name inputs for the generated-case suites, and the oracles that say, independently of the code under test, which
 * of them the documented rules accept.
 *
 * <p>Duties: list the boundary values of every rule explicitly (empty, exactly at and one past the byte limits in
 * one- and multi-byte characters, a paired and an unpaired surrogate, each forbidden character alone and inside a
 * name); draw valid names by construction, so that accepted inputs get as much coverage as refused ones; mix in the
 * test kit's hostile strings; drop repeats, so every case is distinct. The oracles restate the rules of
 * docs/locks.md, docs/queue.md and docs/security.md over code points and regular expressions, not by calling the
 * checks they judge.
 */
public final class NameCases {
    /** Most UTF-8 bytes in a lock resource or a job id. */
    public static final int MAX_NAME_BYTES = 1024;
    /** Most UTF-8 bytes in a queue name. */
    public static final int MAX_QUEUE_BYTES = 256;

    private static final Pattern UNPAIRED = Pattern.compile("[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]");
    private static final Pattern QUEUE_FORBIDDEN = Pattern.compile("[{}\\p{Cc}\\p{javaWhitespace}]");
    private static final Pattern PARTITION_SUFFIX = Pattern.compile(".*#[0-9]+");
    /** Characters a valid name may hold anywhere (no brace, colon, whitespace or control). */
    private static final String SAFE = "abcxyzABC019-_.=@/*?[]\\\"'!~%&+,;<>|^`$\u00e9\u00fc\u4e2d\u0416\u200b\u00a0\ufeff";

    private NameCases() {
    }

    /** @return the explicit boundary and troublemaker values of the name rules */
    public static List<String> boundaries() {
        return List.of("", "a", "x".repeat(MAX_QUEUE_BYTES), "x".repeat(MAX_QUEUE_BYTES + 1),
                "\u00e9".repeat(MAX_QUEUE_BYTES / 2), "\u00e9".repeat(MAX_QUEUE_BYTES / 2) + "x",
                "x".repeat(MAX_NAME_BYTES), "x".repeat(MAX_NAME_BYTES + 1),
                "\u00e9".repeat(MAX_NAME_BYTES / 2), "\u00e9".repeat(MAX_NAME_BYTES / 2) + "x",
                "\u4e2d".repeat(341) + "x", "\u4e2d".repeat(341) + "xy",
                "\uD83D\uDE00", "a\uD83D\uDE00b", "\uD800", "a\uDC00", "\uDC00\uD800", "a\uD800b",
                "{", "}", "{}", "a{b", "a}b", "{a}", ":", "7:lock", "job:1", "a:",
                " ", "a b", "\t", "a\nb", "\r", "\u0000", "a\u007f", "\u0085", "\u2028", "\u00a0", "\u200b",
                "q#3", "q#", "#3", "q#03", "q#x", "q#3a", "#", "-", "--help", "*", "emq:{q}:pending");
    }

    /**
     * @param count how many generated cases besides the boundaries
     * @param maxBytes the byte limit the valid names should reach up to
     * @return the boundaries, then {@code count} distinct cases: half valid by construction, half hostile
     */
    public static List<String> stratified(int count, int maxBytes) {
        Set<String> out = new LinkedHashSet<>(boundaries());
        Garbage g = new Garbage(Garbage.seed());
        SplittableRandom r = new SplittableRandom(Garbage.seed());
        int target = out.size() + count;
        int tries = 0;
        while (out.size() < target && tries++ < count * 20) {
            out.add(out.size() % 2 == 0 ? valid(r, maxBytes) : g.string());
        }
        return new ArrayList<>(out);
    }

    /** @return a name that every rule accepts, 1..maxBytes UTF-8 bytes, sometimes right at the limit */
    public static String valid(SplittableRandom r, int maxBytes) {
        int bytes = r.nextInt(4) == 0 ? maxBytes - r.nextInt(4) : 1 + r.nextInt(Math.min(maxBytes, 64));
        StringBuilder b = new StringBuilder();
        while (true) {
            String next = r.nextInt(12) == 0 ? "\uD83D\uDE00" : String.valueOf(SAFE.charAt(r.nextInt(SAFE.length())));
            if (utf8(b + next) > bytes) {
                break;
            }
            b.append(next);
        }
        if (b.length() == 0) {
            b.append('a');
        }
        return b.toString();
    }

    /** The rule shared by every name: not empty, no unpaired surrogate, at most {@code maxBytes} bytes of UTF-8. */
    public static boolean nameValid(String s, int maxBytes) {
        return s != null && !s.isEmpty() && !UNPAIRED.matcher(s).find() && utf8(s) <= maxBytes;
    }

    /** A lock resource: a name of at most 1,024 bytes without '{' or '}'. */
    public static boolean resourceValid(String s) {
        return nameValid(s, MAX_NAME_BYTES) && s.indexOf('{') < 0 && s.indexOf('}') < 0;
    }

    /** A job id: a name of at most 1,024 bytes without ':'. */
    public static boolean jobIdValid(String s) {
        return nameValid(s, MAX_NAME_BYTES) && s.indexOf(':') < 0;
    }

    /** A queue name: at most 256 bytes, without '{', '}', whitespace or control characters. */
    public static boolean queueValid(String s) {
        return nameValid(s, MAX_QUEUE_BYTES) && !QUEUE_FORBIDDEN.matcher(s).find();
    }

    /** A queue name given by a user: also not ending in {@code #<digits>} (a partition's suffix). */
    public static boolean userQueueValid(String s) {
        return queueValid(s) && !PARTITION_SUFFIX.matcher(s).matches();
    }

    /** @return the UTF-8 length of {@code s} (an unpaired surrogate counts as the one byte '?' it becomes) */
    public static int utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }
}
