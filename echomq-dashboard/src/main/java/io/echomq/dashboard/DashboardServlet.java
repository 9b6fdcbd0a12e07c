package io.echomq.dashboard;

import io.echomq.queue.QueueClient;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The dashboard as a servlet, to serve it inside a web application's own server, below a path of
 * its choosing: the Spring Boot starter registers it at {@code /echomq/*} when
 * {@code echomq.dashboard.enabled=true}; any Servlet 6 container (Jakarta EE 10) can map it too.
 *
 * <pre>{@code
 * DashboardServlet servlet = DashboardServlet.builder(queueClient).token(secret).build();
 * servletContext.addServlet("echomq-dashboard", servlet).addMapping("/echomq/*");
 * // then open /echomq/?token=<secret>
 * }</pre>
 *
 * <p>The pages, actions and safety rules are those of {@link Dashboard}: every page needs the
 * token (the start URL {@code …/echomq/?token=…} trades it for a session cookie scoped to the
 * mount path); an action needs the CSRF value of the dashboard's own pages and a same-origin
 * request, and is refused in read-only mode; every answer carries the same security headers.
 * Links, forms and redirects carry the mount path (the context path and the servlet path). The
 * application's own filters, Spring Security's among them, run before it as for any servlet.
 *
 * <p>It uses the clients it is given and does not close them. Thread-safe.
 */
public final class DashboardServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient Routes routes;
    private final transient String token;
    private final boolean readOnly;

    private DashboardServlet(Routes routes, String token, boolean readOnly) {
        this.routes = routes;
        this.token = token;
        this.readOnly = readOnly;
    }

    /**
     * @param client the queue client whose server the dashboard shows; not closed by it
     * @return a builder with the defaults: a random token, actions on
     * @throws NullPointerException if client is null
     */
    public static Builder builder(QueueClient client) {
        return new Builder(Objects.requireNonNull(client, "client"));
    }

    /** @return the token every page needs */
    public String token() {
        return token;
    }

    /** @return whether every action is refused */
    public boolean readOnly() {
        return readOnly;
    }

    /**
     * Answers every method with a page: an unknown path is a 404 page, a wrong method a 405 page,
     * never a stack trace.
     *
     * @throws IOException if the request cannot be read or the answer written
     */
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String mount = req.getContextPath() + req.getServletPath();
        String path = req.getPathInfo() == null ? "/" : req.getPathInfo();
        Routes.Response r = routes.serve(req.getScheme(), mount, req.getMethod(), path, req.getQueryString(),
                name -> headers(req, name), req.getInputStream(),
                (req.getRemoteUser() == null ? "" : req.getRemoteUser() + " ") + "from " + req.getRemoteAddr());
        resp.setStatus(r.status());
        for (Map.Entry<String, String> h : r.headers().entrySet()) {
            resp.setHeader(h.getKey(), h.getValue());
        }
        resp.setContentLength(r.body().length);
        if (r.body().length > 0) {
            try (OutputStream out = resp.getOutputStream()) {
                out.write(r.body());
            }
        }
    }

    private static List<String> headers(HttpServletRequest req, String name) {
        var values = req.getHeaders(name);
        return values == null ? List.of() : Collections.list(values);
    }

    /** Configures a {@link DashboardServlet}. Not thread-safe; build once. */
    public static final class Builder {
        private final QueueClient client;
        private String token;
        private boolean readOnly;
        private String server;
        private io.echomq.lock.LockClient locks;
        private String figuresUrl;
        private java.nio.file.Path figuresCa;

        private Builder(QueueClient client) {
            this.client = client;
        }

        /**
         * @param token the secret every page needs: 16..256 characters of {@code A-Z a-z 0-9 . _ ~ -};
         *              by default 43 random URL-safe characters, which {@link #token()} tells
         * @return this builder
         * @throws IllegalArgumentException if the token is null or not of that form
         */
        public Builder token(String token) {
            this.token = Dashboard.checkToken(token);
            return this;
        }

        /**
         * @param readOnly whether every action (redrive, remove, cancel, pause, resume) is refused
         * @return this builder
         */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /**
         * @param description what the header of every page names as the server; any password in
         *                    it is replaced by {@code ***}. Default: the client's
         *                    {@link QueueClient#serverDescription()}, through
         *                    {@link Dashboard#productOnly(String)}
         * @return this builder
         * @throws NullPointerException if description is null
         */
        public Builder serverDescription(String description) {
            this.server = Objects.requireNonNull(description, "description");
            return this;
        }

        /**
         * @param locks the lock client whose namespace the locks page shows; not closed by the
         *              dashboard. Without one, the locks page answers 404
         * @return this builder
         * @throws NullPointerException if locks is null
         */
        public Builder locks(io.echomq.lock.LockClient locks) {
            this.locks = Objects.requireNonNull(locks, "locks");
            return this;
        }

        /**
         * @param redisUrl the server the "Why it is safe" page runs its lock acts on, when asked with
         *                 its run buttons: the same server (or cluster) as the client's, given by URL
         *                 because the acts send plain commands on connections of their own. Without
         *                 one, the page explains the acts and offers no run
         * @return this builder
         * @throws NullPointerException if redisUrl is null
         */
        public Builder figures(String redisUrl) {
            this.figuresUrl = Objects.requireNonNull(redisUrl, "redisUrl");
            this.figuresCa = null;
            return this;
        }

        /**
         * As {@link #figures(String)}, for a server whose certificate a private CA signed: the acts'
         * connections trust exactly the CA certificates in the file, as the core's
         * {@code trustedCertificates} does.
         *
         * @param redisUrl            the server the acts run on: {@code rediss://} or {@code rediss-cluster://}
         * @param trustedCertificates a PEM file of CA certificates
         * @return this builder
         * @throws NullPointerException if an argument is null
         */
        public Builder figures(String redisUrl, java.nio.file.Path trustedCertificates) {
            this.figuresUrl = Objects.requireNonNull(redisUrl, "redisUrl");
            this.figuresCa = Objects.requireNonNull(trustedCertificates, "trustedCertificates");
            return this;
        }

        /** @return the servlet, ready to be mapped (to {@code /echomq/*}, say) */
        public DashboardServlet build() {
            String secret = token != null ? token : Guard.randomToken();
            // One name wherever it is mounted: the cookie's Path (the mount) keeps two mounts apart.
            Guard guard = new Guard(secret, readOnly, "emq_dashboard");
            String shown = server != null ? server : Dashboard.productOnly(client.serverDescription());
            QueueIndex index = new QueueIndex(client, QueueIndex.MAX_AGE);
            Routes routes = new Routes(guard, shown, index, locks,
                    new SafetyPage(figuresUrl, figuresCa, null), LocksPage.BUDGET);
            return new DashboardServlet(routes, secret, readOnly);
        }
    }
}
