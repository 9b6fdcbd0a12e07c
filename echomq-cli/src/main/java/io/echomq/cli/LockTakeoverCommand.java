package io.echomq.cli;

import io.echomq.audit.AuditAction;
import io.echomq.audit.AuditTarget;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.LockInfo;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code emq lock takeover <resource> --holder <prefix> [--fence <n>] --ttl <ms> [--yes|--dry-run]}:
 * an operator moves a lock whose holder is stuck to a new holder, in one script
 * ({@link LockClient#takeover}), only while the holder is still the one the operator saw.
 *
 * <p>It reads the lock, prints what it will do and what it cannot undo (an old holder that still
 * runs is stopped only by the fence), then asks {@code Proceed? [y/N]} on a terminal. Without a
 * terminal it refuses unless {@code --yes} is given, with its own exit code, so that a script never
 * takes a lock over by accident. The guard is checked twice: against the read (to say why before
 * asking) and in the script itself (what decides).
 */
@Command(name = "takeover",
        description = {"Moves <resource> from its holder to a new holder with a higher fence, atomically, "
            + "only while the holder is still the one seen: its token starts with --holder (from 'emq lock inspect') "
            + "and, with --fence, the last fence is still that one.",
            "Prints TAKEN token=<token> fence=<n> ttl_ms=<ms>; the new token releases or renews the lock. "
                + "The old holder is not stopped: its release and renew answer NOT_OWNER, its fenced writes are "
                + "refused, but its writes that carry no fence are NOT refused.",
            "Asks Proceed? [y/N] on a terminal; without one, --yes is required."})
final class LockTakeoverCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;
    @Mixin
    HelpOption help;
    @Mixin
    RedisOptions redis;
    @Parameters(index = "0", paramLabel = "<resource>", parameterConsumer = DashValue.class,
            description = "The lock's name, as for the other lock commands.")
    String resource;
    @Option(names = "--holder", required = true, paramLabel = "<prefix>",
            description = "The start of the holder's token as 'emq lock inspect' printed it, at least "
                + LockClient.MIN_TAKEOVER_PREFIX + " characters (without the …), or the whole token. Required.")
    String holder;
    @Option(names = "--fence", paramLabel = "<n>", defaultValue = "0",
            description = "The last fence 'emq lock inspect' printed: refuse if another grant happened since. "
                + "Default: not compared.")
    long fence;
    @Option(names = "--ttl", required = true, paramLabel = "<ms>",
            description = "The new holder's lease ttl, 1..86400000 milliseconds. Required.")
    long ttlMillis;
    @Option(names = "--yes", description = "Do not ask; required without a terminal.")
    boolean yes;
    @Option(names = "--dry-run", description = "Read the lock and say what would be done; change nothing.")
    boolean dryRun;

    /** The answer to {@code Proceed?} is read from here; set by {@link Emq#commandLine}. */
    InputStream stdin = InputStream.nullInputStream();
    /** Whether a person can answer {@code Proceed?}; set by {@link Emq#commandLine}, replaced in tests. */
    BooleanSupplier terminal = ConfirmOptions.Terminal::console;

    @Override
    public Integer call() {
        LockCommands.checkName(spec, resource, "<resource>");
        Duration ttl = LockCommands.ttl(spec, ttlMillis);
        String expected = holder.endsWith("…") ? holder.substring(0, holder.length() - 1) : holder;
        if (expected.length() < LockClient.MIN_TAKEOVER_PREFIX) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--holder': give at least "
                    + LockClient.MIN_TAKEOVER_PREFIX + " characters of the holder's token, as 'emq lock inspect' prints it");
        }
        if (fence < 0) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--fence': " + fence
                    + " is negative; give the fence 'emq lock inspect' printed, or leave it out");
        }
        if (yes && dryRun) {
            throw new ParameterException(spec.commandLine(), "--yes and --dry-run cannot be combined");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (LockClient locks = redis.connect(HolderLabel.of("emq-takeover"))) {
            LockInfo seen = locks.inspect(resource);
            out.println("now: " + LockCommands.Inspect.describe(seen, false));
            String refusal = refusal(seen, expected);
            if (refusal != null) {
                out.println("REFUSED " + refusal + "; nothing was changed");
                return ExitCodes.NO;
            }
            out.println("takeover: the lock goes to a new holder with a fence above " + seen.lastFence()
                    + ", for " + ttlMillis + " ms.");
            out.println("warning: the old holder is not stopped. If it still runs, its release and renew fail "
                    + "(NOT_OWNER) and its fenced writes are refused; its writes without a fence are NOT refused.");
            if (dryRun) {
                out.println("DRY-RUN nothing was changed");
                return ExitCodes.OK;
            }
            if (!yes) {
                if (!terminal.getAsBoolean()) {
                    err.println("emq lock takeover: no terminal to confirm on; add --yes to take the lock over, "
                            + "or --dry-run to see what would be done");
                    return ExitCodes.NOT_CONFIRMED;
                }
                out.print("Proceed? [y/N] ");
                out.flush();
                if (!confirmed()) {
                    out.println("ABORTED nothing was changed");
                    return ExitCodes.NO;
                }
            }
            Optional<Lease> taken = locks.takeover(resource, expected, fence, ttl);
            if (taken.isEmpty()) {
                out.println("REFUSED the lock changed since it was read; nothing was changed");
                out.println("now: " + LockCommands.Inspect.describe(locks.inspect(resource), false));
                return ExitCodes.NO;
            }
            Lease lease = taken.get();
            AuditNote.record(locks.auditTrail(), AuditTarget.lock(resource), AuditAction.TAKEN_OVER,
                    "from holder " + LockCommands.Inspect.describe(seen, false) + " to fence " + lease.fence(), err,
                    "emq lock takeover");
            out.println("TAKEN token=" + lease.token() + " fence=" + lease.fence() + " ttl_ms=" + ttlMillis);
            return ExitCodes.OK;
        }
    }

    /** @return why the lock as read is not the one the operator saw, or null when it is */
    private String refusal(LockInfo seen, String expected) {
        if (!seen.isHeld()) {
            return "FREE nobody holds the lock";
        }
        if (!seen.holderToken().orElseThrow().startsWith(expected)) {
            return "CHANGED the holder's token does not start with " + expected;
        }
        if (fence > 0 && seen.lastFence() != fence) {
            return "CHANGED the last fence is " + seen.lastFence() + ", not " + fence;
        }
        return null;
    }

    private boolean confirmed() {
        try {
            String line = new BufferedReader(new InputStreamReader(stdin, StandardCharsets.UTF_8)).readLine();
            String answer = line == null ? "" : line.trim().toLowerCase(Locale.ROOT);
            return answer.equals("y") || answer.equals("yes");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
