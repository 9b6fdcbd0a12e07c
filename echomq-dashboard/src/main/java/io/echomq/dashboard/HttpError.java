package io.echomq.dashboard;

/**
 * A request the dashboard refuses, with the status and the one-line message the page shows. The
 * message is written for the operator and never holds a stack trace or a Redis password.
 */
final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;

    HttpError(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    /** @return the HTTP status, 400..599 */
    int status() {
        return status;
    }

    static HttpError badRequest(String message) {
        return new HttpError(400, message);
    }

    static HttpError unauthorized(String message) {
        return new HttpError(401, message);
    }

    static HttpError forbidden(String message) {
        return new HttpError(403, message);
    }

    static HttpError notFound(String message) {
        return new HttpError(404, message);
    }
}
