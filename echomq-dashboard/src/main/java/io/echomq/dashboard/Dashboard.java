package io.echomq.dashboard;

import com.sun.net.httpserver.HttpServer;
import io.echomq.queue.QueueClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

/**
 * The EchoMQ web dashboard: every queue with its counts, a queue's jobs by state and its last
 * hour's throughput, one job, a queue's schedules, the live workers, the held locks (when given a
 * {@link io.echomq.lock.LockClient}), and the
 * operator's actions (redrive, remove, cancel, pause, resume), served by the JDK's own
 * {@code com.sun.net.httpserver} from plain HTML and one stylesheet in the jar.
 *
 * <pre>{@code
 * try (QueueClient client = QueueClient.create("redis://127.0.0.1:6379");
 *      Dashboard dashboard = Dashboard.builder(client).port(7070).start()) {
 *     System.out.println("open " + dashboard.startUri());
 *     ...
 * }
 * }</pre>
 *
 * <p>Safety: it binds {@code 127.0.0.1} unless told otherwise; every page needs the token (the
 * start URI carries it once, then a {@code SameSite=Strict} cookie does); every action needs the
 * CSRF value of the dashboard's own pages and a same-site origin, and is refused in read-only
 * mode; every answer carries a CSP of {@code default-src 'self'} and the usual security headers.
 * See {@code docs/dashboard.md}.
 *
 * <p>The dashboard uses the client it is given and does not close it. Thread-safe.
 */
public final class Dashboard implements AutoCloseable {
    /** Requests served at once. */
    static final int THREADS = 4;
    /** What a token given to {@link Builder#token} must look like: it travels in a URL and a cookie. */
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9._~-]{16,256}");

    private final HttpServer server;
    private final ExecutorService executor;
    private final String token;
    private final boolean readOnly;
    private final URI uri;

    private Dashboard(HttpServer server, ExecutorService executor, String token, boolean readOnly, URI uri) {
        this.server = server;
        this.executor = executor;
        this.token = token;
        this.readOnly = readOnly;
        this.uri = uri;
    }

    /**
     * @param client the queue client whose server the dashboard shows; not closed by it
     * @return a builder with the defaults: 127.0.0.1, a free port, a random token, actions on
     * @throws NullPointerException if client is null
     */
    public static Builder builder(QueueClient client) {
        return new Builder(Objects.requireNonNull(client, "client"));
    }

    /** @return {@code http://<address>:<port>/}, without the token */
    public URI uri() {
        return uri;
    }

    /** @return the URI to open first: {@link #uri()} with {@code ?token=…}, which sets the session cookie */
    public URI startUri() {
        return URI.create(uri + "?token=" + token);
    }

    /** @return the token every page needs */
    public String token() {
        return token;
    }

    /** @return whether every action is refused */
    public boolean readOnly() {
        return readOnly;
    }

    /** Stops serving at once; requests in flight are cut. The queue client stays open. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    /** @return the token, if it is of the form a token must have (it travels in a URL and a cookie) */
    static String checkToken(String token) {
        if (token == null || !TOKEN.matcher(token).matches()) {
            throw new IllegalArgumentException("token must be 16..256 characters of A-Z a-z 0-9 . _ ~ -");
        }
        return token;
    }

    /** Configures and starts a {@link Dashboard}. Not thread-safe; build once. */
    /**
     * The server's product and version as a page header names it: {@code "Redis 6.2.11"},
     * {@code "Redis Cluster 7.0.15 (3 masters)"}. {@link QueueClient#serverDescription()} adds a note
     * on sharded pub/sub ({@code "(SPUBLISH: no)"}) that matters to whoever runs workers on a
     * cluster, and reads like a fault to an operator looking at a page.
     *
     * @param description a {@link QueueClient#serverDescription()}
     * @return the description without its SPUBLISH note; any other text unchanged
     * @throws NullPointerException if description is null
     */
    public static String productOnly(String description) {
        return description.replace(", SPUBLISH: yes", "").replace(", SPUBLISH: no", "")
                .replace(" (SPUBLISH: yes)", "").replace(" (SPUBLISH: no)", "");
    }

    public static final class Builder {
        private final QueueClient client;
        private String bind = "127.0.0.1";
        private int port;
        private String token;
        private boolean readOnly;
        private String server;
        private io.echomq.lock.LockClient locks;
        private java.time.Duration rescanAfter = QueueIndex.MAX_AGE;
        private java.time.Duration lockScanBudget = LocksPage.BUDGET;
        private String figuresUrl;
        private java.nio.file.Path figuresCa;
        private String figuresPrefix;

        private Builder(QueueClient client) {
            this.client = client;
        }

        /**
         * @param address the address to listen on, a literal or a host name; default {@code 127.0.0.1}
         *                ({@code 0.0.0.0} serves every interface: then anyone who can reach the port
         *                and has the token can act)
         * @return this builder
         * @throws IllegalArgumentException if the address is null or blank
         */
        public Builder bind(String address) {
            if (address == null || address.isBlank()) {
                throw new IllegalArgumentException("bind address must not be empty");
            }
            this.bind = address.strip();
            return this;
        }

        /**
         * @param port 0..65535; 0 (the default) picks a free one
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port " + port + " is outside 0..65535");
            }
            this.port = port;
            return this;
        }

        /**
         * @param token the secret every page needs: 16..256 characters of {@code A-Z a-z 0-9 . _ ~ -};
         *              by default 43 random URL-safe characters
         * @return this builder
         * @throws IllegalArgumentException if the token is null or not of that form
         */
        public Builder token(String token) {
            this.token = checkToken(token);
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
         * @param description what the header of every page names as the server, for example the
         *                    Redis URL; any password in it is replaced by {@code ***}. Default: the
         *                    client's {@link QueueClient#serverDescription()}, through
         *                    {@link #productOnly(String)}
         * @return this builder
         * @throws NullPointerException if description is null
         */
        public Builder serverDescription(String description) {
            this.server = Objects.requireNonNull(description, "description");
            return this;
        }

        /**
         * @param locks the lock client whose namespace the locks page shows (its held locks, ttl and
         *              fence); not closed by the dashboard. Without one, the locks page answers 404
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

        /** For tests: the prefix every run of an act writes under, instead of a random one. */
        Builder figuresPrefix(String prefix) {
            this.figuresPrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /** For tests: how long the overview shows a walk of the keyspace before it walks again. */
        Builder rescanAfter(java.time.Duration age) {
            this.rescanAfter = Objects.requireNonNull(age, "age");
            return this;
        }

        /** For tests: how long one view of the locks page may scan, instead of {@link LocksPage#BUDGET}. */
        Builder lockScanBudget(java.time.Duration budget) {
            this.lockScanBudget = Objects.requireNonNull(budget, "budget");
            return this;
        }

        /**
         * Starts serving.
         *
         * @return the running dashboard; close it to stop
         * @throws IllegalArgumentException if the bind address is unknown
         * @throws UncheckedIOException if the address cannot be bound (the port is in use)
         */
        public Dashboard start() {
            InetAddress address;
            try {
                address = InetAddress.getByName(bind);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("unknown bind address '" + bind + "'", e);
            }
            String secret = token != null ? token : Guard.randomToken();
            // The JDK server writes a response's headers and body in separate packets; with Nagle's
            // algorithm on, a small page then waits for the client's delayed ACK (~40 ms).
            if (System.getProperty("sun.net.httpserver.nodelay") == null) {
                System.setProperty("sun.net.httpserver.nodelay", "true");
            }
            HttpServer http;
            try {
                http = HttpServer.create(new InetSocketAddress(address, port), 64);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot listen on " + bind + ":" + port + ": " + e.getMessage(), e);
            }
            int bound = http.getAddress().getPort();
            Guard guard = new Guard(secret, readOnly, bound);
            String shown = server != null ? server : productOnly(client.serverDescription());
            QueueIndex index = new QueueIndex(client, rescanAfter);
            http.createContext("/", new JdkExchange(new Routes(guard, shown, index, locks,
                    new SafetyPage(figuresUrl, figuresCa, figuresPrefix), lockScanBudget)));
            AtomicInteger n = new AtomicInteger();
            ExecutorService executor = Executors.newFixedThreadPool(THREADS, r -> {
                Thread t = new Thread(r, "emq-dashboard-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            http.setExecutor(executor);
            http.start();
            String host = address instanceof Inet6Address ? "[" + address.getHostAddress() + "]" : address.getHostAddress();
            return new Dashboard(http, executor, secret, readOnly, URI.create("http://" + host + ":" + bound + "/"));
        }
    }
}
