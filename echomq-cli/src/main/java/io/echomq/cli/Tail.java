package io.echomq.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** The last {@code capacity} bytes written, in a ring. */
final class Tail {
    private final byte[] ring;
    private long written;

    Tail(int capacity) {
        this.ring = new byte[capacity];
    }

    Void readAll(InputStream in) {
        try (in) {
            byte[] buf = new byte[8192];
            for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
                write(buf, n);
            }
        } catch (IOException closed) {
            // the process was killed
        }
        return null;
    }

    synchronized void write(byte[] b, int n) {
        for (int i = 0; i < n; i++) {
            ring[(int) (written++ % ring.length)] = b[i];
        }
    }

    /** @return the kept bytes as UTF-8 (a character cut at the start becomes U+FFFD), "…" first if cut */
    synchronized String text() {
        int len = (int) Math.min(written, ring.length);
        byte[] copy = new byte[len];
        int start = (int) ((written - len) % ring.length);
        for (int i = 0; i < len; i++) {
            copy[i] = ring[(start + i) % ring.length];
        }
        String s = new String(copy, StandardCharsets.UTF_8);
        return written > ring.length ? "…" + s : s;
    }
}
