package io.echomq.cli;

import io.echomq.RedisUrl;
import io.echomq.RedisCommandException;
import io.echomq.dashboard.SafetyFigures;
import io.echomq.lock.LockClient;
import io.echomq.server.RedisServer;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code emq demo [--redis URL] [--keep] [--html FILE]}: replays the six classic locking failure scenarios
 * ({@link DemoScenarios}) on a real server, the embedded one unless {@code --redis} names
 * another, and exits 0 only if every act behaved as expected. With {@code --html} it also writes
 * the figures of acts 1 to 6 to one self-contained page (a path that cannot be written is refused
 * with exit code 2 before any act runs). With {@code --keep} it leaves the
 * demo's keys in place and prints the {@code emq dashboard} command that shows them; on the
 * embedded server it then waits for Ctrl-C, since the data lives only as long as that server.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Replays the classic distributed-locking failure scenarios on a real Redis; each act is judged "
                + "PASS or FAIL.",
            "Acts: 1 four workers race, one wins; 2 SETNX then EXPIRE with a crash in the gap; 3 a blind DEL "
                + "after expiry; 4 PX without NX; 5 a stale holder's fenced write; 6 the claim lease: 1,000 jobs, "
                + "four workers, one killed mid-job.",
            "Runs on an embedded redis-server unless --redis is given. It touches only its own keys, "
                + "under the prefixes " + DemoScenarios.NAMESPACE + " and " + DemoScenarios.QUEUE_PREFIX
                + " (its queue), and deletes them at the end unless --keep is given."})
final class DemoCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--redis", paramLabel = "URL",
            description = "Run on this server instead of an embedded one. $" + RedisOptions.ENV
                + " is not consulted: the demo brings its own server unless told otherwise.")
    String redisUrl;
    @Option(names = "--html", paramLabel = "FILE",
            description = "Also write the figures of acts 1 to 6, drawn from this run's replies as the dashboard's "
                + "'Why it is safe' page draws them, to FILE: one self-contained HTML page that loads nothing "
                + "from the network. Its directory must exist.")
    Path html;
    @Option(names = "--keep",
            description = "Leave the demo's keys in place and print the emq dashboard command that shows them. "
                + "On the embedded server, keep it running until Ctrl-C.")
    boolean keep;

    private final UntilStopped stop = new UntilStopped("emq-demo-shutdown");

    @Override
    public Integer call() throws InterruptedException {
        if (redisUrl != null) {
            LockClient.builder().redisUrl(redisUrl); // a malformed URL fails here, before anything runs
        }
        checkHtml(html);
        DemoConsole console = new DemoConsole(spec.commandLine().getOut());
        console.line("emq demo: distributed locking — the classic failure scenarios on a real server");
        if (redisUrl != null) {
            return run(console, redisUrl, RedisUrl.redact(redisUrl));
        }
        console.line("Starting an embedded redis-server on a free port…");
        long start = System.nanoTime();
        try (RedisServer server = EmbeddedServer.start(0)) {
            console.line("Started " + server.product() + " " + server.version() + " at " + server.url() + " in "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms; it stops when the demo ends.");
            int code = run(console, server.url(), server.url());
            if (keep) {
                // The data lives in this process's server: keep it until Ctrl-C.
                console.line("The embedded server keeps running with them until Ctrl-C (then its data is gone).");
                console.line("");
                spec.commandLine().getOut().flush();
                stop.await();
            }
            return code;
        }
    }

    /**
     * Refuses an {@code --html} path that cannot be written, before any act runs.
     *
     * @throws IllegalArgumentException if the path is a directory or its directory does not exist
     *     or is not writable
     */
    static void checkHtml(Path file) {
        if (file == null) {
            return;
        }
        Path dir = file.toAbsolutePath().getParent();
        if (Files.isDirectory(file)) {
            throw new IllegalArgumentException("--html " + file + ": is a directory; name the file to write");
        }
        if (dir == null || !Files.isDirectory(dir)) {
            throw new IllegalArgumentException("--html " + file + ": the directory " + dir + " does not exist");
        }
        if (!Files.isWritable(dir) || (Files.exists(file) && !Files.isWritable(file))) {
            throw new IllegalArgumentException("--html " + file + ": cannot be written (permission denied)");
        }
    }

    private void writeHtml(String figures, String shownUrl) {
        String page = SafetyFigures.standalonePage("emq demo: why the lock is safe", "The figures of one run of "
                + "emq demo on " + shownUrl + ", drawn from the replies the server gave. Hover or focus (Tab) a worker "
                + "or an acquire to light its path and read its own result.", figures);
        try {
            Files.writeString(html, page, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException("--html " + html + ": cannot be written: " + e.getMessage(), e);
        }
    }

    /** Stops a {@code --keep} run's wait as Ctrl-C would, for tests. */
    void stop() {
        stop.stop();
    }

    private int run(DemoConsole console, String url, String shownUrl) throws InterruptedException {
        try (LockClient locks = LockClient.builder().redisUrl(url).namespace(DemoScenarios.NAMESPACE).build()) {
            console.line("Server: " + WorkerCommand.describeServer(locks.serverDescription()) + " at " + shownUrl);
            console.line("Keys: lock keys " + DemoScenarios.NAMESPACE + "{<resource>}:lock and :fence, raw keys "
                    + DemoScenarios.NAMESPACE + "…, queue keys " + DemoScenarios.QUEUE_PREFIX + "…");
            List<DemoScenarios.ActResult> results;
            String figures;
            try (DemoScenarios demo = DemoScenarios.open(url, console, keep)) {
                results = demo.runAll();
                figures = demo.figures();
            }
            boolean passed = console.summary(results);
            if (html != null) {
                writeHtml(figures, shownUrl);
                console.line("Figures of acts 1 to 6 written to " + html + " (one page; it loads nothing from the "
                        + "network).");
            }
            if (keep) {
                console.line("");
                console.line("Look at them in the dashboard, from another terminal:");
                console.line("  ./emq dashboard --redis " + shownUrl);
            }
            return passed ? ExitCodes.OK : ExitCodes.NO;
        } catch (RedisException e) {
            throw new RedisCommandException("demo command", null, e); // a raw Lettuce command failed
        }
    }
}
