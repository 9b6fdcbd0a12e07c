package io.echomq.example;

/**
 * The payload of an {@code emails} job, as JSON: {@code {"to": "ada@example.com", "subject": "Welcome"}}.
 *
 * @param to      the address
 * @param subject the subject line
 */
public record Email(String to, String subject) {
}
