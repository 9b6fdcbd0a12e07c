package io.echomq.testkit;

import io.echomq.server.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on {@code 127.0.0.1} between clients and one upstream server (normally a {@link RedisServer}), that
 * injects network faults on command:
 *
 * <ol>
 *   <li>{@link #cutAll()} closes every open connection at once, both sides, as a network reset would. New
 *       connections are accepted again at once.</li>
 *   <li>{@link #delay(Duration)} holds every chunk of bytes, in both directions, for that long before forwarding
 *       it, until {@link #heal()}.</li>
 *   <li>{@link #blackHole(Duration)} keeps accepting and holding connections but forwards nothing, in either
 *       direction, for that long (or until {@link #heal()}): a client waits for replies that do not come, as behind
 *       a dropped route. The bytes held are then delivered in order.</li>
 * </ol>
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start(); FaultProxy proxy = FaultProxy.start(redis.host(), redis.port())) {
 *     connect(proxy.url());
 *     proxy.cutAll();
 * }
 * }</pre>
 *
 * <p>Each connection uses two platform threads that copy bytes; meant for tests with tens of connections, not
 * thousands. Thread-safe.
 */
public final class FaultProxy implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

    private final String upstreamHost;
    private final int upstreamPort;
    private final ServerSocket listener;
    private final Thread acceptor;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final Object gate = new Object();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong cut = new AtomicLong();
    private long delayNanos;            // guarded by gate
    private long blackHoleUntilNanos;   // guarded by gate; 0 = none
    private volatile boolean closed;

    private FaultProxy(String upstreamHost, int upstreamPort, ServerSocket listener) {
        this.upstreamHost = upstreamHost;
        this.upstreamPort = upstreamPort;
        this.listener = listener;
        this.acceptor = new Thread(this::acceptLoop, "echomq-fault-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
    }

    /**
     * Starts a proxy on a free loopback port that forwards to {@code upstreamHost:upstreamPort}.
     *
     * @param upstreamHost the server's host, for example {@code "127.0.0.1"}
     * @param upstreamPort the server's port, 1..65535
     * @return a running proxy; close it when done
     * @throws IllegalArgumentException if the port is out of range
     * @throws NullPointerException if {@code upstreamHost} is {@code null}
     * @throws UncheckedIOException if no listening socket can be opened
     */
    public static FaultProxy start(String upstreamHost, int upstreamPort) {
        Objects.requireNonNull(upstreamHost, "upstreamHost");
        if (upstreamPort < 1 || upstreamPort > 65_535) {
            throw new IllegalArgumentException("upstream port out of range: " + upstreamPort);
        }
        try {
            ServerSocket socket = new ServerSocket(0, 50, InetAddress.getByName(HOST));
            FaultProxy proxy = new FaultProxy(upstreamHost, upstreamPort, socket);
            proxy.acceptor.start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot open the proxy's listening socket", e);
        }
    }

    /**
     * Starts a proxy in front of {@code server}.
     *
     * @param server the upstream server
     * @return a running proxy
     * @throws UncheckedIOException if no listening socket can be opened
     */
    public static FaultProxy start(RedisServer server) {
        return start(server.host(), server.port());
    }

    /** @return the port clients connect to */
    public int port() {
        return listener.getLocalPort();
    }

    /** @return always {@code "127.0.0.1"} */
    public String host() {
        return HOST;
    }

    /** @return {@code "redis://127.0.0.1:<port>"}, the proxy's address as a Redis URL */
    public String url() {
        return "redis://" + HOST + ":" + port();
    }

    /**
     * Closes every open connection now, both the client's side and the upstream side. Connections made afterwards
     * are forwarded as usual (under whatever delay or black hole is in force).
     *
     * @return how many connections were cut
     */
    public int cutAll() {
        int n = 0;
        for (Link link : links) {
            if (link.close()) {
                n++;
            }
        }
        cut.addAndGet(n);
        return n;
    }

    /**
     * Delays every chunk of bytes, in both directions, by {@code delay} before forwarding it, until {@link #heal()}
     * or another call. {@link Duration#ZERO} removes the delay.
     *
     * @param delay the added latency per chunk
     * @throws IllegalArgumentException if {@code delay} is negative or over one minute
     * @throws NullPointerException if {@code delay} is {@code null}
     */
    public void delay(Duration delay) {
        long nanos = checkDuration(delay, "delay");
        synchronized (gate) {
            delayNanos = nanos;
            gate.notifyAll();
        }
    }

    /**
     * Forwards nothing, in either direction, for {@code duration}: connections stay open and new ones are accepted,
     * but every byte is held until the black hole ends (or {@link #heal()}), then delivered in order.
     *
     * @param duration how long to hold traffic
     * @throws IllegalArgumentException if {@code duration} is negative or over one minute
     * @throws NullPointerException if {@code duration} is {@code null}
     */
    public void blackHole(Duration duration) {
        long nanos = checkDuration(duration, "duration");
        synchronized (gate) {
            blackHoleUntilNanos = System.nanoTime() + nanos;
            gate.notifyAll();
        }
    }

    /** Ends any delay and black hole at once. Connections that were cut stay cut. */
    public void heal() {
        synchronized (gate) {
            delayNanos = 0;
            blackHoleUntilNanos = 0;
            gate.notifyAll();
        }
    }

    /** @return connections accepted since start */
    public long acceptedConnections() {
        return accepted.get();
    }

    /** @return connections closed by {@link #cutAll()} since start */
    public long cutConnections() {
        return cut.get();
    }

    /** @return connections open right now */
    public int openConnections() {
        return links.size();
    }

    /** Stops listening and closes every connection. Idempotent; never throws. */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        heal();
        for (Link link : links) {
            link.close();
        }
        try {
            acceptor.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "FaultProxy[" + url() + " -> " + upstreamHost + ":" + upstreamPort + "]";
    }

    private static long checkDuration(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.compareTo(Duration.ofMinutes(1)) > 0) {
            throw new IllegalArgumentException(name + " must be within 0..1 minute: " + d);
        }
        return d.toNanos();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            accepted.incrementAndGet();
            Socket upstream = new Socket();
            try {
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(new InetSocketAddress(upstreamHost, upstreamPort), CONNECT_TIMEOUT_MILLIS);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue; // upstream down: the client sees its connection closed
            }
            Link link = new Link(client, upstream);
            links.add(link);
            if (closed) {
                link.close();
                return;
            }
            link.start();
        }
    }

    /** Waits while a black hole is in force, then for the delay; returns false if the link closed meanwhile. */
    private boolean passGate(Link link) throws InterruptedException {
        long delay;
        synchronized (gate) {
            while (true) {
                if (link.isClosed()) {
                    return false;
                }
                long left = blackHoleUntilNanos - System.nanoTime();
                if (blackHoleUntilNanos == 0 || left <= 0) {
                    break;
                }
                TimeUnit.NANOSECONDS.timedWait(gate, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
            delay = delayNanos;
        }
        if (delay > 0) {
            TimeUnit.NANOSECONDS.sleep(delay);
        }
        return !link.isClosed();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // best effort
        }
    }

    /** One proxied connection: the client's socket, the upstream socket, and a copier each way. */
    private final class Link {
        private final Socket client;
        private final Socket upstream;
        private final AtomicLong state = new AtomicLong(); // 0 open, 1 closed

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void start() {
            String name = "echomq-fault-proxy-" + client.getPort();
            Thread up = new Thread(() -> pump(client, upstream), name + "-up");
            Thread down = new Thread(() -> pump(upstream, client), name + "-down");
            up.setDaemon(true);
            down.setDaemon(true);
            up.start();
            down.start();
        }

        boolean isClosed() {
            return state.get() != 0;
        }

        /** @return true if this call closed it */
        boolean close() {
            if (!state.compareAndSet(0, 1)) {
                return false;
            }
            links.remove(this);
            try {
                client.setSoLinger(true, 0); // a reset, as a cut network path looks to the client
            } catch (SocketException ignored) {
                // already closed
            }
            closeQuietly(client);
            closeQuietly(upstream);
            synchronized (gate) {
                gate.notifyAll();
            }
            return true;
        }

        private void pump(Socket from, Socket to) {
            byte[] buffer = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (!passGate(this)) {
                        return;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other side closed, or we were cut
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                close();
            }
        }
    }
}
