package io.echomq.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import picocli.CommandLine;

/**
 * The outcome of one in-process {@code emq} run: its exit code and everything it printed.
 *
 * @param code the exit code
 * @param out what it printed on stdout
 * @param err what it printed on stderr
 */
record EmqRun(int code, String out, String err) {

    /**
     * Runs {@code emq args} through the same command tree as {@link Emq#main}, with {@code env} and
     * an empty stdin.
     */
    static EmqRun run(Map<String, String> env, String... args) {
        return run(env, InputStream.nullInputStream(), args);
    }

    /** Runs {@code emq args} with {@code env}, reading {@code stdin} as the standard input. */
    static EmqRun run(Map<String, String> env, InputStream stdin, String... args) {
        CommandLine cli = Emq.commandLine(env, stdin);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new EmqRun(code, out.toString(), err.toString());
    }

    /** Runs {@code emq args} with {@code EMQ_REDIS_URL} set to {@code url}. */
    static EmqRun at(String url, String... args) {
        return run(Map.of(RedisOptions.ENV, url), args);
    }

    /** @return a loopback port with nothing listening on it */
    static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
