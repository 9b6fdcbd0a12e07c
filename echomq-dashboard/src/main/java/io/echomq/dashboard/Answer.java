package io.echomq.dashboard;

import java.nio.charset.StandardCharsets;

/**
 * What a page answers: a document with its status, or a redirect (303, so that a reload never
 * repeats a POST).
 *
 * @param status   the HTTP status
 * @param type     the content type, or null for a redirect
 * @param body     the body bytes, empty for a redirect
 * @param location where a redirect points, or null
 */
record Answer(int status, String type, byte[] body, String location) {
    static Answer html(String page) {
        return new Answer(200, "text/html; charset=utf-8", page.getBytes(StandardCharsets.UTF_8), null);
    }

    static Answer redirect(String location) {
        return new Answer(303, null, new byte[0], location);
    }
}
