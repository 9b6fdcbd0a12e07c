package io.echomq.dashboard;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The dashboard served below a path, such as {@code /echomq} in a Spring Boot application.
 *
 * <p>Duties: put the mount path in front of every root path the pages write (each {@code href},
 * {@code src}, {@code action} and {@code formaction} attribute that starts with {@code /}) and in
 * front of a redirect's location. Done once, on the way out, so that every page, today's and any
 * added later, writes plain root paths ({@code /queue?name=…}) and knows nothing of the mount.
 *
 * <p>Why rewriting the text is safe: every value read from Redis passes through {@link Html#esc},
 * which turns {@code "} into {@code &quot;}, so the sequence {@code href="/} can only come from
 * the dashboard's own markup, never from a job's payload or a queue's name.
 */
final class MountPath {
    private static final Pattern ROOT_LINK = Pattern.compile("(\\s(?:href|src|action|formaction)=\")/");

    private MountPath() {
    }

    /**
     * @param html  a page, UTF-8
     * @param mount the mount path without a trailing slash; "" at the root
     * @return the page with {@code mount} in front of each of its root paths; {@code html} itself
     *     when {@code mount} is ""
     */
    static byte[] links(byte[] html, String mount) {
        if (mount.isEmpty()) {
            return html;
        }
        String page = new String(html, StandardCharsets.UTF_8);
        String out = ROOT_LINK.matcher(page).replaceAll("$1" + Matcher.quoteReplacement(mount) + "/");
        return out.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * @param location a redirect's target, a root path of the dashboard
     * @param mount    the mount path without a trailing slash; "" at the root
     * @return the target below the mount
     */
    static String location(String location, String mount) {
        return location.startsWith("/") ? mount + location : location;
    }
}
