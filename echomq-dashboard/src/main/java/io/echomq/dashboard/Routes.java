package io.echomq.dashboard;

import io.echomq.RedisCommandException;
import io.echomq.RedisUrl;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

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
 *   <li>Puts the mount path in front of every link, form action and redirect when the dashboard is
 *       served below one ({@link MountPath}), so that the pages themselves write root paths only.</li>
 * </ol>
 *
 * <p>It knows no HTTP server: {@link JdkExchange} and {@link DashboardServlet} hand it what they
 * read and send the {@link Response} it returns.
 */
final class Routes {
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
    private final LockPage lock;
    private final LockTakeover takeover;
    private final WorkersPage workers;
    private final SafetyPage safety;
    private final AuditPage audit;

    Routes(Guard guard, String server, QueueIndex index, io.echomq.lock.LockClient lockClient) {
        this(guard, server, index, lockClient, new SafetyPage(null, null, null), LocksPage.BUDGET);
    }

    /** @param lockScanBudget how long one view of the locks page may scan the keyspace */
    Routes(Guard guard, String server, QueueIndex index, io.echomq.lock.LockClient lockClient, SafetyPage safety,
           java.time.Duration lockScanBudget) {
        this.guard = guard;
        this.frame = new Html.Frame(RedisUrl.redactAll(server), guard.readOnly(), guard.csrf());
        this.overview = new OverviewPage(index);
        io.echomq.audit.AuditTrail trail = index.auditTrail();
        this.audit = new AuditPage(trail);
        ActionAudit recorder = new ActionAudit(trail);
        this.jobs = new JobsPage(index, audit);
        this.job = new JobDetailPage(index);
        this.actions = new QueueActions(index, recorder);
        this.locks = new LocksPage(lockClient, lockScanBudget);
        this.schedules = new SchedulesPage(index);
        this.lock = new LockPage(lockClient, index, audit);
        this.takeover = new LockTakeover(lockClient, recorder);
        this.workers = new WorkersPage(index);
        this.safety = safety;
    }

    /**
     * Answers one request.
     *
     * @param scheme   {@code http} or {@code https}, as the client sees the server
     * @param mount    the path served under, without a trailing slash ("" at the root)
     * @param method   the HTTP method
     * @param path     the decoded path below the mount, starting with {@code /}
     * @param rawQuery the query as sent, or null
     * @param headers  every value of a header by its name; an empty list when absent
     * @param body     the request body
     * @param peer     who sent it: {@code from <address>}, or {@code <user> from <address>} (see {@link Request#who()})
     * @return what to send; every failure is already a page in it
     */
    Response serve(String scheme, String mount, String method, String path, String rawQuery,
                   Function<String, List<String>> headers, InputStream body, String peer) {
        Map<String, String> extra = new LinkedHashMap<>();
        Answer answer;
        try {
            answer = route(Request.read(method, scheme, mount, path, rawQuery, headers, body, peer), extra);
        } catch (HttpError e) {
            answer = failure(e.status(), e.getMessage());
        } catch (RedisCommandException e) {
            answer = failure(503, "Redis failed: " + RedisUrl.redactAll(String.valueOf(e.getMessage())));
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "dashboard request " + mount + path + " failed", e);
            answer = failure(500, "internal error; the dashboard's log has the details");
        }
        return send(answer, mount, extra);
    }

    private Answer route(Request r, Map<String, String> extra) throws IOException {
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
            extra.put("Set-Cookie", guard.sessionCookie(r.mount(), r.scheme().equals("https")));
            return Answer.redirect(withoutToken(path, r.rawQuery()));
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
            case "/audit" -> {
                onlyGet(r);
                guard.checkToken(r);
                return audit.answer(r, frame);
            }
            case "/lock" -> {
                onlyGet(r);
                guard.checkToken(r);
                return lock.answer(r, frame);
            }
            case "/safety" -> {
                if (r.method().equals("POST")) {
                    guard.checkAction(r);
                    return safety.run(r, frame);
                }
                onlyGet(r);
                guard.checkToken(r);
                return safety.show(frame);
            }
            case "/confirm" -> {
                onlyGet(r);
                guard.checkToken(r);
                if (guard.readOnly()) {
                    throw HttpError.forbidden("the dashboard runs read-only (--read-only): actions are turned off");
                }
                return LockTakeover.WIRE.equals(r.param("action")) ? takeover.confirm(r, frame)
                        : actions.confirm(r, frame);
            }
            case "/action" -> {
                if (!r.method().equals("POST")) {
                    throw new HttpError(405, "an action is a POST from its confirmation page");
                }
                guard.checkAction(r);
                return LockTakeover.WIRE.equals(r.param("action")) ? takeover.perform(r, frame)
                        : actions.perform(r, frame);
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

    /** @return the answer with the security headers, and with {@code mount} in front of its own paths */
    private static Response send(Answer a, String mount, Map<String, String> extra) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'self'; "
                + "base-uri 'none'");
        h.put("X-Content-Type-Options", "nosniff");
        h.put("X-Frame-Options", "DENY");
        h.put("Referrer-Policy", "same-origin");
        h.put("Cache-Control", "no-store");
        if (a.location() != null) {
            h.put("Location", MountPath.location(a.location(), mount));
        }
        if (a.type() != null) {
            h.put("Content-Type", a.type());
        }
        h.putAll(extra);
        boolean html = a.type() != null && a.type().startsWith("text/html");
        return new Response(a.status(), h, html ? MountPath.links(a.body(), mount) : a.body());
    }

    /**
     * An answer as sent.
     *
     * @param status  the HTTP status
     * @param headers each header once, by name
     * @param body    the body, empty for a redirect
     */
    record Response(int status, Map<String, String> headers, byte[] body) {
    }
}
