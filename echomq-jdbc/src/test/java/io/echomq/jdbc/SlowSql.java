package io.echomq.jdbc;

/**
 * A function the H2 server runs for a test's "slow query": {@code CALL SLOW_CALL(ms)} blocks the
 * caller's session on the server for {@code ms} milliseconds, as a long query or a lock wait would,
 * while the client waits for the answer on its socket.
 */
public final class SlowSql {
    private SlowSql() {
    }

    /**
     * Blocks the calling server session.
     *
     * @param ms how long, in milliseconds
     * @return {@code ms}
     * @throws InterruptedException if the server's session thread is interrupted
     */
    public static int slowCall(int ms) throws InterruptedException {
        Thread.sleep(ms);
        return ms;
    }
}
