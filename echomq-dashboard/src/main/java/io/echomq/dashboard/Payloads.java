package io.echomq.dashboard;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * A payload (or an error text) as a page may show it: never all of a large one, never raw binary.
 *
 * <p>Text that is valid UTF-8 without control characters (but line breaks and tabs) is shown as
 * text, cut to {@value #TEXT_BYTES} bytes; anything else as hex, cut to {@value #HEX_BYTES} bytes.
 * The preview says when it was cut and how large the whole is.
 */
final class Payloads {
    /** Most bytes of a text payload shown. */
    static final int TEXT_BYTES = 4096;
    /** Most bytes of a binary payload shown as hex. */
    static final int HEX_BYTES = 1024;

    private Payloads() {
    }

    /**
     * What a page shows of some bytes.
     *
     * @param text    the shown text or hex (not yet HTML-escaped)
     * @param binary  whether it is hex
     * @param total   the size of the whole, in bytes
     * @param cut     whether only the start is shown
     */
    record Preview(String text, boolean binary, int total, boolean cut) {
    }

    /** @return the preview of {@code bytes} (null reads as empty) */
    static Preview of(byte[] bytes) {
        byte[] b = bytes == null ? new byte[0] : bytes;
        String text = readableText(b);
        if (text != null) {
            if (b.length <= TEXT_BYTES) {
                return new Preview(text, false, b.length, false);
            }
            String head = readableText(trimToCharBoundary(b, TEXT_BYTES));
            if (head != null) {
                return new Preview(head, false, b.length, true);
            }
        }
        int n = Math.min(b.length, HEX_BYTES);
        String hex = HexFormat.ofDelimiter(" ").formatHex(b, 0, n);
        return new Preview(hex, true, b.length, n < b.length);
    }

    /** @return the bytes as text when they are UTF-8 without control characters but \n, \r, \t; else null */
    private static String readableText(byte[] b) {
        try {
            String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (Character.isISOControl(c) && c != '\n' && c != '\r' && c != '\t') {
                    return null;
                }
            }
            return s;
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** @return the first {@code max} bytes or fewer, not ending inside a UTF-8 sequence */
    private static byte[] trimToCharBoundary(byte[] b, int max) {
        int end = max;
        while (end > 0 && (b[end] & 0xC0) == 0x80) {
            end--;
        }
        return java.util.Arrays.copyOf(b, end);
    }
}
