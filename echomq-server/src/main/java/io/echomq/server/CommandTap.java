package io.echomq.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Records the commands a Redis server executes, as reported by {@code MONITOR}; obtained from
 * {@link RawRedis#monitor()}. Each command is a list of its arguments, the command name first, exactly as the
 * server received them (for example {@code ["SET", "k", "v"]}). All methods are thread-safe.
 */
public final class CommandTap implements AutoCloseable {

    private final RawRedis connection;
    private final List<List<String>> commands = new ArrayList<>();
    private final Thread reader;
    private volatile boolean closed;

    CommandTap(RawRedis connection) {
        this.connection = connection;
        this.reader = new Thread(this::run, "echomq-redis-monitor");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Returns the commands recorded so far, oldest first.
     *
     * @return an immutable snapshot; never {@code null}
     */
    public synchronized List<List<String>> commands() {
        return List.copyOf(commands);
    }

    /** Forgets all commands recorded so far; recording continues. */
    public synchronized void clear() {
        commands.clear();
    }

    /**
     * Waits until a recorded command (including one recorded before this call) matches.
     *
     * @param match   the condition, applied to each command's argument list
     * @param timeout the longest time to wait
     * @return {@code true} if a matching command was recorded, {@code false} on timeout or if the tap stopped
     * @throws IllegalStateException if the calling thread is interrupted (the interrupt flag is restored)
     */
    public synchronized boolean awaitCommand(Predicate<List<String>> match, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (commands.stream().anyMatch(match)) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0 || !reader.isAlive()) {
                return false;
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for a command", e);
            }
        }
    }

    /** Stops recording and closes the monitor connection. Idempotent; never throws. */
    @Override
    public void close() {
        closed = true;
        connection.close();
        try {
            reader.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        try {
            while (!closed) {
                List<String> command = parse(connection.readMonitorLine());
                if (command != null) {
                    synchronized (this) {
                        commands.add(command);
                        notifyAll();
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // connection closed (normal on close()) or broken: stop recording
        } finally {
            synchronized (this) {
                notifyAll();
            }
        }
    }

    /**
     * Parses one MONITOR line such as {@code 1700000000.123456 [0 127.0.0.1:5555] "SET" "k" "v"} (without the
     * leading {@code +}), undoing the server's escaping ({@code \"}, {@code \\}, {@code \n}, {@code \r},
     * {@code \t}, {@code \a}, {@code \b}, {@code \xNN}). Returns {@code null} for a line with no arguments.
     */
    static List<String> parse(String line) {
        int start = line.indexOf("] \"");
        if (start < 0) {
            return null;
        }
        List<String> args = new ArrayList<>();
        ByteArrayOutputStream arg = new ByteArrayOutputStream();
        int i = start + 2;
        int n = line.length();
        while (i < n) {
            if (line.charAt(i) != '"') { // the separating space
                i++;
                continue;
            }
            arg.reset();
            i++;
            while (i < n && line.charAt(i) != '"') {
                char c = line.charAt(i++);
                if (c == '\\' && i < n) {
                    char e = line.charAt(i++);
                    switch (e) {
                        case 'n': arg.write('\n'); break;
                        case 'r': arg.write('\r'); break;
                        case 't': arg.write('\t'); break;
                        case 'a': arg.write(7); break;
                        case 'b': arg.write('\b'); break;
                        case 'x':
                            arg.write(Integer.parseInt(line.substring(i, i + 2), 16));
                            i += 2;
                            break;
                        default: arg.write(e); // \" and \\
                    }
                } else {
                    byte[] bytes = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                    arg.write(bytes, 0, bytes.length);
                }
            }
            i++; // closing quote
            args.add(arg.toString(StandardCharsets.UTF_8));
        }
        return args;
    }
}
