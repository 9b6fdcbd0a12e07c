package io.echomq.queue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A MONITOR connection that keeps which commands came from clients, as opposed to the commands a
 * Lua script runs ({@code [0 lua]} in the MONITOR line), which the test kit's CommandTap does not
 * tell apart. For counting the round trips a client really makes.
 */
final class ClientCommandMonitor implements AutoCloseable {
    /** One command sent by a client: its address and its name, upper case. */
    record Command(String client, String name, String line) {
    }

    private final Socket socket;
    private final List<Command> commands = new ArrayList<>();
    private final Thread reader;

    ClientCommandMonitor(String host, int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(host, port), 5000);
        OutputStream out = socket.getOutputStream();
        out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        String ok = in.readLine();
        if (!"+OK".equals(ok)) {
            socket.close();
            throw new IOException("MONITOR answered " + ok);
        }
        reader = new Thread(() -> read(in), "client-command-monitor");
        reader.setDaemon(true);
        reader.start();
    }

    private void read(BufferedReader in) {
        try {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                // +1700000000.123456 [0 127.0.0.1:5555] "EVALSHA" "..." ...
                int open = line.indexOf('[');
                int close = line.indexOf(']', open);
                int q1 = line.indexOf('"', close);
                int q2 = line.indexOf('"', q1 + 1);
                if (open < 0 || close < 0 || q1 < 0 || q2 < 0) {
                    continue;
                }
                String where = line.substring(open + 1, close);
                String client = where.substring(where.indexOf(' ') + 1);
                if (client.equals("lua")) {
                    continue;
                }
                synchronized (this) {
                    commands.add(new Command(client, line.substring(q1 + 1, q2).toUpperCase(), line));
                }
            }
        } catch (IOException closed) {
            // close() ends the stream
        }
    }

    /** @return the client commands seen so far, oldest first */
    synchronized List<Command> commands() {
        return List.copyOf(commands);
    }

    @Override
    public void close() throws IOException {
        socket.close();
        try {
            reader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
