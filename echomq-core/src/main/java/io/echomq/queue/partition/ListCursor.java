package io.echomq.queue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * The cursor of a listing, as text and as list-2's ARGV.
 *
 * <ol>
 *   <li>Encodes the last entry of a page: {@code z,<score>,<id>} for an entry of a sorted set (the
 *       score as Redis printed it), {@code l,<id>,<prev>} for an entry of the wait LIST and the
 *       entry before it; ids in unpadded base64url, so any id fits.</li>
 *   <li>Decodes and checks a cursor a caller gives back, refusing a malformed one, and a LIST
 *       cursor for any state but pending, before Redis is touched.</li>
 * </ol>
 *
 * <p>A sharded queue puts the partition first ({@code <i>,<cursor>}, or {@code <i>,s} for the
 * start of partition i); {@code ShardListing} owns that layer.
 */
record ListCursor(String kind, String score, String id, String prev) {
    static final ListCursor START = new ListCursor("", "", "", "");
    private static final Pattern SCORE = Pattern.compile("-?(inf|[0-9]{1,20}(\\.[0-9]{1,20})?(e[+-]?[0-9]{1,3})?)");
    private static final Pattern B64 = Pattern.compile("[A-Za-z0-9_-]{0,1400}");
    private static final Base64.Encoder ENC = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DEC = Base64.getUrlDecoder();

    /** @return the text form; START has none */
    String text() {
        return kind.equals("z") ? "z," + score + ',' + enc(id) : "l," + enc(id) + ',' + enc(prev);
    }

    boolean isStart() {
        return kind.isEmpty();
    }

    /**
     * @param text a cursor a page returned, or null for the first page
     * @throws IllegalArgumentException if it is no cursor of a listing of {@code state}
     */
    static ListCursor parse(String text, JobState state) {
        if (text == null) {
            return START;
        }
        String[] p = text.split(",", -1);
        if (p.length == 3 && p[0].equals("z") && SCORE.matcher(p[1]).matches() && B64.matcher(p[2]).matches()) {
            String id = dec(p[2], text);
            if (!id.isEmpty()) {
                return new ListCursor("z", p[1], id, "");
            }
        }
        if (p.length == 3 && p[0].equals("l") && B64.matcher(p[1]).matches() && B64.matcher(p[2]).matches()) {
            String id = dec(p[1], text);
            if (!id.isEmpty()) {
                if (state != JobState.PENDING) {
                    throw new IllegalArgumentException("cursor '" + text + "' belongs to a listing of pending jobs, not "
                            + state.wireName());
                }
                return new ListCursor("l", "", id, dec(p[2], text));
            }
        }
        throw new IllegalArgumentException("malformed cursor '" + shorten(text)
                + "': pass back the cursor a page returned, as it is");
    }

    private static String enc(String s) {
        return ENC.encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String dec(String s, String whole) {
        try {
            return new String(DEC.decode(s), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("malformed cursor '" + shorten(whole) + "'", e);
        }
    }

    static String shorten(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}
