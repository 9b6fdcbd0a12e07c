package io.echomq.cli;

import io.echomq.RedisUrl;
import io.echomq.dashboard.Dashboard;
import io.echomq.lock.LockClient;
import io.echomq.queue.QueueClient;
import io.echomq.server.RedisServer;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code emq dashboard [--redis URL] [--bind ADDR] [--port N] [--token T] [--read-only]}: serves
 * the web dashboard ({@link Dashboard}) in the foreground until interrupted, on an embedded
 * {@code redis-server} unless {@code --redis} names a server, as {@code emq demo} does. It prints
 * the URL to open, with the token.
 */
@Command(name = "dashboard",
        description = {"Serves a web page of every queue, a queue's jobs by state, one job, a queue's schedules and the "
                + "held locks, with the "
                + "operator's actions (redrive, remove, cancel, pause, resume), until Ctrl-C.",
            "Runs on an embedded redis-server unless --redis is given. It listens on 127.0.0.1 unless --bind says "
                + "otherwise. Every page needs the token printed at start (or given with --token); every action "
                + "also needs the page's CSRF value, and --read-only turns actions off. See docs/dashboard.md."})
final class DashboardCommand implements Callable<Integer> {
    private final UntilStopped stop = new UntilStopped("emq-dashboard-shutdown");

    @Spec
    CommandSpec spec;
    @picocli.CommandLine.Mixin
    HelpOption help;

    @Option(names = "--redis", paramLabel = "URL",
            description = "Show this server instead of an embedded one: redis://[user:password@]host[:port][/db], "
                + "rediss://…, redis-socket://…, redis-cluster://…. $" + RedisOptions.ENV + " is not consulted.")
    String redisUrl;
    @Option(names = "--redis-ca", paramLabel = "PEM",
            description = "For rediss:// only: trust the CA certificates in this PEM file.")
    Path trustedCertificates;
    @Option(names = "--bind", paramLabel = "ADDR", defaultValue = "127.0.0.1",
            description = "Address to listen on. Default: ${DEFAULT-VALUE}. 0.0.0.0 serves every interface: "
                + "anyone who can reach it and has the token can act.")
    String bind;
    @Option(names = "--port", paramLabel = "N", defaultValue = "7070",
            description = "Port to listen on; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
    int port;
    @Option(names = "--token", paramLabel = "T",
            description = "The token every page needs: 16..256 characters of A-Z a-z 0-9 . _ ~ -. "
                + "Default: a random one, printed at start.")
    String token;
    @Option(names = "--read-only", description = "Refuse every action; show the pages only.")
    boolean readOnly;

    @Override
    public Integer call() throws InterruptedException {
        if (port < 0 || port > 65_535) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--port': " + port
                    + " is outside 0..65535");
        }
        if (redisUrl != null) {
            QueueClient.builder().redisUrl(redisUrl); // a malformed URL fails here, before anything runs
            return serve(redisUrl, RedisUrl.redact(redisUrl));
        }
        try (RedisServer server = EmbeddedServer.start(0)) {
            out().println("Started an embedded " + server.product() + " " + server.version() + " at " + server.url()
                    + "; it stops with the dashboard, and keeps no data.");
            return serve(server.url(), server.url());
        }
    }

    private int serve(String url, String shown) throws InterruptedException {
        RedisOptions redis = new RedisOptions();
        redis.url = url;
        redis.trustedCertificates = trustedCertificates;
        try (QueueClient client = redis.connectQueue(); LockClient locks = redis.connect();
             Dashboard dashboard = start(client, locks, url, shown)) {
            PrintWriter out = out();
            out.println("emq dashboard: " + shown + " · " + WorkerCommand.describeServer(client.serverDescription()) + " at " + dashboard.uri()
                    + (readOnly ? " — read-only" : ""));
            out.println("Open " + dashboard.startUri() + " — Ctrl-C to stop");
            out.flush();
            stop.await();
        }
        return ExitCodes.OK;
    }

    private Dashboard start(QueueClient client, LockClient locks, String url, String shown) {
        try {
            Dashboard.Builder b = Dashboard.builder(client).locks(locks).bind(bind).port(port).readOnly(readOnly)
                    .serverDescription(shown + " · " + Dashboard.productOnly(client.serverDescription()));
            if (trustedCertificates == null) {
                b.figures(url);
            } else {
                b.figures(url, trustedCertificates); // the lock acts' connections trust --redis-ca too
            }
            if (token != null) {
                b.token(token);
            }
            return b.start();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        } catch (UncheckedIOException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage()
                    + (port == 0 ? "" : " (is another dashboard running? try --port 0 for a free port)"));
        }
    }

    private PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** Stops a running {@link #call()} as Ctrl-C would, for tests. */
    void stop() {
        stop.stop();
    }
}
