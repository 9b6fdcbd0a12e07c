package io.echomq.queue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a job's {@code errors} field, as {@code fail-4} writes it (includes/error-log.lua): a JSON
 * array of objects {@code {"attempt": n, "at": ms, "error": "text"}}, oldest first.
 *
 * <ol>
 *   <li>Only that shape is read: an array of flat objects whose values are strings or numbers;
 *       an entry without a string {@code error} is skipped, a missing number reads as 0.</li>
 *   <li>Anything else (a field a foreign client wrote in another form) reads as no errors, never
 *       as a failure: the field is a help for an operator, and {@code last_error} stays whole.</li>
 * </ol>
 *
 * <p>Its own parser, because core depends on no JSON library.
 */
final class AttemptErrorsField {
    private final String text;
    private int at;

    private AttemptErrorsField(String text) {
        this.text = text;
    }

    /** @return the attempts' errors the field holds, oldest first; empty when null or malformed */
    static List<AttemptError> parse(String field) {
        if (field == null) {
            return List.of();
        }
        try {
            return new AttemptErrorsField(field).array();
        } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
            return List.of();
        }
    }

    private List<AttemptError> array() {
        List<AttemptError> out = new ArrayList<>();
        expect('[');
        if (peek() == ']') {
            at++;
            return out;
        }
        do {
            AttemptError e = object();
            if (e != null) {
                out.add(e);
            }
        } while (comma());
        expect(']');
        return List.copyOf(out);
    }

    private AttemptError object() {
        expect('{');
        long attempt = 0;
        long when = 0;
        String error = null;
        if (peek() == '}') {
            at++;
            return null;
        }
        do {
            String name = string();
            expect(':');
            if (peek() == '"') {
                String v = string();
                if (name.equals("error")) {
                    error = v;
                }
            } else {
                long v = number();
                if (name.equals("attempt")) {
                    attempt = v;
                } else if (name.equals("at")) {
                    when = v;
                }
            }
        } while (comma());
        expect('}');
        return error == null ? null : new AttemptError(attempt, Instant.ofEpochMilli(when), error);
    }

    private boolean comma() {
        if (peek() == ',') {
            at++;
            return true;
        }
        return false;
    }

    private char peek() {
        while (Character.isWhitespace(text.charAt(at))) {
            at++;
        }
        return text.charAt(at);
    }

    private void expect(char c) {
        if (peek() != c) {
            throw new IllegalArgumentException("expected " + c + " at " + at);
        }
        at++;
    }

    private long number() {
        peek();
        int start = at;
        while (at < text.length() && "+-.eE0123456789".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        // Lua's cjson writes integers up to 14 digits plainly, larger ones in exponent form
        return (long) Double.parseDouble(text.substring(start, at));
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (true) {
            char c = text.charAt(at++);
            if (c == '"') {
                return b.toString();
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = text.charAt(at++);
            switch (e) {
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'u' -> {
                    b.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                }
                default -> b.append(e);
            }
        }
    }
}
