package io.echomq.queue;

import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * The error text a failed attempt leaves in its job hash ({@code last_error}).
 *
 * <ol>
 *   <li>A thrown error becomes its full stack trace ({@link #stackTrace}).</li>
 *   <li>Any text is kept to at most 16 KiB characters, marked when cut ({@link #kept}); null becomes empty.</li>
 * </ol>
 *
 * <p>Together because both decide what one stored field holds, whichever fail call wrote it.
 */
final class FailureText {
    /** The most characters of error text one attempt keeps, before the truncation mark. */
    static final int MAX_ERROR_CHARS = 16 * 1024;

    private FailureText() {
    }

    /** @return {@code error} as stored: empty for null, cut after {@link #MAX_ERROR_CHARS} with a mark */
    static String kept(String error) {
        String text = error == null ? "" : error;
        if (text.length() > MAX_ERROR_CHARS) {
            text = text.substring(0, MAX_ERROR_CHARS) + "\n… (truncated)";
        }
        return text;
    }

    /** @return the stack trace of {@code t} as printed, or empty for null */
    static String stackTrace(Throwable t) {
        if (t == null) {
            return "";
        }
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w.toString();
    }
}
