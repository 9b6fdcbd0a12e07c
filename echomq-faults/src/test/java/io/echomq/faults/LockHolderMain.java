package io.echomq.faults;

import io.echomq.lock.FencedWriteOutcome;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.RenewOutcome;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A lock holder JVM for scenario 2. It acquires {@code <resource>} for {@code <ttl ms>} and prints
 * {@code GRANTED <fence> <token>}, listens for the lease's lost signal ({@code LOST <reason>}), then waits for a
 * line on stdin. On {@code go} it tries what a holder that slept through its ttl would try: renew
 * ({@code RENEW <outcome>}) and a fenced write ({@code WRITE <outcome>}), then prints {@code DONE} and exits.
 *
 * <p>Arguments: {@code <redis url> <resource> <ttl ms> <store key>}.
 */
public final class LockHolderMain {
    private LockHolderMain() {
    }

    /**
     * Runs the holder.
     *
     * @param args see the class comment
     * @throws Exception if Redis cannot be reached
     */
    public static void main(String[] args) throws Exception {
        try (LockClient locks = LockClient.create(args[0])) {
            Lease lease = locks.tryAcquire(args[1], Duration.ofMillis(Long.parseLong(args[2]))).orElseThrow();
            lease.onLost(reason -> System.out.println("LOST " + reason));
            System.out.println("GRANTED " + lease.fence() + " " + lease.token());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            while (!"go".equals(in.readLine())) {
                // wait for the parent
            }
            RenewOutcome renew = lease.renew();
            System.out.println("RENEW " + renew + " held=" + lease.isHeld());
            FencedWriteOutcome w = locks.fencedStore().write(args[3], lease.fence(), "from-paused-holder");
            System.out.println("WRITE " + w);
            System.out.println("DONE");
        }
        System.exit(0);
    }
}
