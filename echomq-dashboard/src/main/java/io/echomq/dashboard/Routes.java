package io.echomq.dashboard;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.echomq.RedisCommandException;
import io.echomq.RedisUrl;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Every request's path through the dashboard.
 *
 * <ol>
 *   <li>Routes a path and method to its page, after the {@link Guard}'s check: the stylesheet
 *       is the one thing served without the token; {@code ?token=…} on any page trades the token
 *       for the session cookie and redirects to the same page without it, so that the token stays
 *       out of the history and of any later link.</li>
 *   <li>Sends every answer with the security headers (a CSP of {@code default-src 'self'},
 *       {@code X-Frame-Options: DENY}, {@code X-Content-Type-Options: nosniff},
 *       {@code Referrer-Policy: same-origin}, {@code Cache-Control: no-store}). Same-origin, not
 *       no-referrer: under no-referrer a browser sends {@code Origin: null} with the confirmation
 *       form's POST, and the origin check would refuse every action; same-origin still sends
 *       nothing to another site.</li>
 *   <li>Turns a failure into a page with a status and one line: an {@link HttpError} as it says,
 *       a Redis failure as 503 with any Redis password in its text replaced, anything else as
 *       500 with no detail (the detail goes to the log). Never a stack trace in a page.</li>
 * </ol>
 */
final class Routes implements HttpHandler {
    private static final System.Logger LOG = System.getLogger(Routes.class.getName());
    private static final String CSS = "/static/dashboard.css";

    private final Guard guard;
    private final Html.Frame frame;
    private final OverviewPage overview;
    private final JobsPage jobs;
    private final JobDetailPage job;
    private final QueueActions actions;
    private final LocksPage locks;
    private final SchedulesPage schedules;
    private final WorkersPage workers;

    Routes(Guard guard, String server, QueueIndex index, io.echomq.lock.LockClient lockClient) {
        this.guard = guard;
        this.frame = new Html.Frame(RedisUrl.redactAll(server), guard.readOnly(), guard.csrf());
        this.overview = new OverviewPage(index);
        this.jobs = new JobsPage(index);
        this.job = new JobDetailPage(index);
        this.actions = new QueueActions(index);
        this.locks = new LocksPage(lockClient);
        this.schedules = new SchedulesPage(index);
        this.workers = new WorkersPage(index);
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        try (ex) {
            Answer answer;
            try {
                answer = route(Request.read(ex), ex);
            } catch (HttpError e) {
                answer = failure(e.status(), e.getMessage());
            } catch (RedisCommandException e) {
                answer = failure(503, "Redis failed: " + RedisUrl.redactAll(String.valueOf(e.getMessage())));
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "dashboard request " + ex.getRequestURI().getPath() + " failed", e);
                answer = failure(500, "internal error; the dashboard's log has the details");
            }
            send(ex, answer);
        }
    }

    private Answer route(Request r, HttpExchange ex) throws IOException {
        String path = r.path();
        if (path.equals(CSS)) {
            onlyGet(r);
            return stylesheet();
        }
        String token = r.query("token");
        if (token != null && r.method().equals("GET")) {
            if (!guard.isToken(token)) {
                throw HttpError.unauthorized("the token in the URL is not this dashboard's");
            }
            ex.getResponseHeaders().add("Set-Cookie", guard.sessionCookie());
            return Answer.redirect(withoutToken(path, ex.getRequestURI().getRawQuery()));
        }
        switch (path) {
            case "/" -> {
                onlyGet(r);
                guard.checkToken(r);
                return Answer.html(overview.render(frame));
            }
            case "/queue" -> {
                onlyGet(r);
                guard.checkToken(r);
                return jobs.answer(r, frame);
            }
            case "/job" -> {
                onlyGet(r);
                guard.checkToken(r);
                return job.answer(r, frame);
            }
            case "/schedules" -> {
                onlyGet(r);
                guard.checkToken(r);
                return schedules.answer(r, frame);
            }
            case "/workers" -> {
                onlyGet(r);
                guard.checkToken(r);
                return workers.answer(r, frame);
            }
            case "/locks" -> {
                onlyGet(r);
                guard.checkToken(r);
                return locks.answer(r, frame);
            }
            case "/confirm" -> {
                onlyGet(r);
                guard.checkToken(r);
                if (guard.readOnly()) {
                    throw HttpError.forbidden("the dashboard runs read-only (--read-only): actions are turned off");
                }
                return actions.confirm(r, frame);
            }
            case "/action" -> {
                if (!r.method().equals("POST")) {
                    throw new HttpError(405, "an action is a POST from its confirmation page");
                }
                guard.checkAction(r);
                return actions.perform(r, frame);
            }
            default -> throw HttpError.notFound("no page at " + path);
        }
    }

    private static void onlyGet(Request r) {
        if (!r.method().equals("GET")) {
            throw new HttpError(405, "this page answers GET only");
        }
    }

    /** @return the path and query with the {@code token} parameter left out */
    static String withoutToken(String path, String rawQuery) {
        StringBuilder q = new StringBuilder();
        for (String pair : rawQuery == null ? new String[0] : rawQuery.split("&")) {
            if (!pair.isEmpty() && !pair.equals("token") && !pair.startsWith("token=")) {
                q.append(q.length() == 0 ? '?' : '&').append(pair);
            }
        }
        return path + q;
    }

    private Answer failure(int status, String message) {
        // Without the token, not even the server's name is shown.
        Html.Frame f = status == 401 ? new Html.Frame("", frame.readOnly(), "") : frame;
        byte[] body = Html.error(f, status, message).getBytes(StandardCharsets.UTF_8);
        return new Answer(status, "text/html; charset=utf-8", body, null);
    }

    private static Answer stylesheet() throws IOException {
        try (InputStream in = Routes.class.getResourceAsStream("static/dashboard.css")) {
            if (in == null) {
                throw new IllegalStateException("dashboard.css is missing from the jar");
            }
            return new Answer(200, "text/css; charset=utf-8", in.readAllBytes(), null);
        }
    }

    private static void send(HttpExchange ex, Answer a) throws IOException {
        var h = ex.getResponseHeaders();
        h.set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'self'; "
                + "base-uri 'none'");
        h.set("X-Content-Type-Options", "nosniff");
        h.set("X-Frame-Options", "DENY");
        h.set("Referrer-Policy", "same-origin");
        h.set("Cache-Control", "no-store");
        if (a.location() != null) {
            h.set("Location", a.location());
        }
        if (a.type() != null) {
            h.set("Content-Type", a.type());
        }
        byte[] body = a.body();
        ex.sendResponseHeaders(a.status(), body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
