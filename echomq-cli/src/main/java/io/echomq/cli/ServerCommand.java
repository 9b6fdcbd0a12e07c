package io.echomq.cli;

import io.echomq.server.RedisServer;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code emq server [--port 6379]}: runs the embedded {@code redis-server} in the foreground
 * until interrupted, so that the other commands' default URL works without installing Redis. It
 * keeps no data: nothing is saved to disk.
 */
@Command(name = "server", mixinStandardHelpOptions = true,
        description = {"Runs a real redis-server on 127.0.0.1 until Ctrl-C.",
            "The binary is the embedded one, or the one named by $EMQ_REDIS_SERVER. Nothing is "
                + "persisted."})
final class ServerCommand implements Callable<Integer> {
    private final CountDownLatch stop = new CountDownLatch(1);

    @Spec
    CommandSpec spec;

    @Option(names = "--port", paramLabel = "<port>", defaultValue = "6379",
            description = "Port to listen on; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
    int port;

    @Override
    public Integer call() throws InterruptedException {
        RedisServer server = EmbeddedServer.start(port);
        Thread hook = new Thread(server::close, "emq-server-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        PrintWriter out = spec.commandLine().getOut();
        // Named as the server names itself: "valkey-server 8.0.1" when EMQ_REDIS_SERVER points at Valkey.
        out.println(server.product().toLowerCase(java.util.Locale.ROOT) + "-server " + server.version()
                + " listening at " + server.url() + " — Ctrl-C to stop");
        out.flush();
        try {
            stop.await();
        } finally {
            server.close();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run
            }
        }
        return ExitCodes.OK;
    }

    /** Stops a running {@link #call()} as Ctrl-C would, for tests. */
    void stop() {
        stop.countDown();
    }
}
