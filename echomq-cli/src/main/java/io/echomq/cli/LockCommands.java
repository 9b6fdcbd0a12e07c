package io.echomq.cli;

import io.echomq.lock.AcquireOptions;
import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.LockInfo;
import io.echomq.lock.Locks;
import io.echomq.lock.LockWaitTimeoutException;
import io.echomq.lock.RedlockClient;
import io.echomq.lock.ReleaseOutcome;
import io.echomq.lock.RenewOutcome;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code emq lock}: acquire, release, renew and inspect one lock from a shell. Each subcommand
 * checks its input before it connects, prints one line on stdout and leaves every lease alone
 * when it exits: an acquired lock lives until its ttl, and a script keeps the printed token to
 * release or renew it later.
 *
 * <p>Each subcommand connects one {@link Locks} client and works through that contract: a
 * {@link LockClient} on the {@code --redis} server, or, with {@code --redlock URL,URL,…}, a
 * {@link RedlockClient} over those independent masters (see {@code docs/scaling.md}). Only
 * {@code inspect} tells them apart, to print each master's line under Redlock's verdict.
 *
 * <p>Our tokens are hex, but a token minted by another client may start with {@code -}, so the
 * only short option of these subcommands is {@code -h}: any other argument that is not one of
 * their long options is a value ({@link DashValue}); a value that is exactly {@code -h} goes
 * after a lone {@code --}.
 */
@Command(name = "lock", mixinStandardHelpOptions = true,
        description = "Acquire, release, renew and inspect a lock.",
        subcommands = {LockCommands.Acquire.class, LockCommands.Release.class, LockCommands.Renew.class,
            LockCommands.Inspect.class, LockTakeoverCommand.class})
final class LockCommands {
    private static final int MAX_RESOURCE_BYTES = 1024;

    private LockCommands() {
    }

    /** What every lock subcommand takes: help, the Redis URL (or the Redlock masters) and the resource. */
    abstract static class Subcommand implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Mixin
        HelpOption help;
        @Mixin
        RedisOptions redis;
        @Option(names = "--redlock", paramLabel = "URL,URL,...", split = ",",
                description = {"Use Redlock over these independent masters instead of one --redis server: "
                    + "an odd number, at least 3, each a different server. Separate the URLs with commas, "
                    + "or repeat the option. The lock is granted only by a majority (N/2+1) of them."})
        List<String> redlock;
        @Option(names = "--master-timeout", paramLabel = "<ms>", defaultValue = "1000",
                description = "With --redlock only: how long one command may take on one master, 1..60000 "
                    + "milliseconds. Default: ${DEFAULT-VALUE}. Keep it well under --ttl: a master that hangs costs this much "
                    + "of the lease's validity.")
        long masterTimeoutMillis;
        @Parameters(index = "0", paramLabel = "<resource>", parameterConsumer = DashValue.class,
                description = "The lock's name: 1..1024 bytes of UTF-8 without '{' or '}'. Unlike a queue's name, "
                    + "it may hold spaces and any other character.")
        String resource;

        /**
         * Connects the lock client every subcommand works on: Redlock over the {@code --redlock}
         * masters when they are given, else the one {@code --redis} server.
         *
         * @throws ParameterException if {@code --redis} was given with {@code --redlock},
         *     {@code --master-timeout} without it, or {@code --master-timeout} is outside 1..60000 ms
         * @throws IllegalArgumentException if the URL (or the list of masters) is malformed
         * @throws io.echomq.RedisCommandException if the server, or a quorum of masters, cannot be
         *     reached
         */
        Locks connect() {
            if (redlock == null) {
                if (spec.commandLine().getParseResult().hasMatchedOption("--master-timeout")) {
                    throw new ParameterException(spec.commandLine(), "--master-timeout needs --redlock: with one "
                        + "--redis server, commands time out after " + LockClient.DEFAULT_COMMAND_TIMEOUT.toMillis()
                        + " ms");
                }
                return redis.connect(HolderLabel.of("emq"));
            }
            if (spec.commandLine().getParseResult().hasMatchedOption("--redis")) {
                throw new ParameterException(spec.commandLine(), "--redis and --redlock cannot be combined: "
                        + "give one server with --redis, or the Redlock masters with --redlock");
            }
            if (masterTimeoutMillis < 1 || masterTimeoutMillis > 60_000) {
                throw new ParameterException(spec.commandLine(), "Invalid value for option '--master-timeout': "
                        + masterTimeoutMillis + " is not a timeout; give 1..60000 milliseconds");
            }
            try {
                return RedlockClient.builder().redisUrls(redlock)
                        .masterTimeout(Duration.ofMillis(masterTimeoutMillis)).build();
            } catch (IllegalArgumentException e) {
                // the core speaks of its Java API; the shell user gave --redlock
                throw new IllegalArgumentException(String.valueOf(e.getMessage())
                        .replace("redisUrls", "--redlock").replace("use LockClient", "use --redis"), e);
            }
        }
    }

    /** {@code emq lock acquire <resource> --ttl <ms> [--wait <ms>] [--plain]}. */
    @Command(name = "acquire",
            description = {"Acquires <resource> for --ttl milliseconds; prints OK token=<token> fence=<n>.",
                "Prints nil (exit code 1) when someone else holds it. The lock is not released when the "
                    + "command exits: it lives until its ttl runs out, or until released with its token."})
    static final class Acquire extends Subcommand {
        @Option(names = "--ttl", required = true, paramLabel = "<ms>",
                description = "Lease ttl, 1..86400000 milliseconds (one day). Required.")
        long ttlMillis;
        @Option(names = "--wait", paramLabel = "<ms>",
                description = "Wait up to this many milliseconds (0 or more) for the holder to release it or for "
                    + "its ttl to run out. Default: no wait, nil at once.")
        Long waitMillis;
        @Option(names = "--plain",
                description = "Plain SET <lock> <token> NX PX <ttl>, without a fence (prints fence=none).")
        boolean plain;

        @Override
        public Integer call() throws InterruptedException {
            checkName(spec, resource, "<resource>");
            Duration ttl = ttl(spec, ttlMillis);
            Duration wait = waitMillis == null ? null : waitTime(spec, waitMillis);
            AcquireOptions options = plain ? AcquireOptions.defaults().plain() : AcquireOptions.defaults();
            PrintWriter out = spec.commandLine().getOut();
            Optional<Lease> lease;
            try (Locks locks = connect()) {
                lease = wait == null ? locks.tryAcquire(resource, ttl, options) : await(locks, ttl, wait, options);
            }
            if (lease.isEmpty()) {
                out.println("nil");
                return ExitCodes.NO;
            }
            Lease l = lease.get();
            out.println("OK token=" + l.token() + " fence=" + (l.isFenced() ? Long.toString(l.fence()) : "none"));
            return ExitCodes.OK;
        }

        private Optional<Lease> await(Locks locks, Duration ttl, Duration wait, AcquireOptions options)
                throws InterruptedException {
            try {
                return Optional.of(locks.acquire(resource, ttl, wait, options));
            } catch (LockWaitTimeoutException e) {
                spec.commandLine().getErr().println(spec.qualifiedName() + ": " + e.getMessage());
                return Optional.empty();
            }
        }
    }

    /** {@code emq lock release <resource> <token>}. */
    @Command(name = "release",
            description = {"Releases <resource> if it still holds <token> (compare-and-delete).",
                "Prints RELEASED (exit code 0), NOT_OWNER (exit code 5: someone else holds it now) or "
                    + "EXPIRED (exit code 6: nobody holds it)."})
    static final class Release extends Subcommand {
        @Parameters(index = "1", paramLabel = "<token>", parameterConsumer = DashValue.class,
                description = "The token printed by acquire (it may start with '-').")
        String token;

        @Override
        public Integer call() {
            checkName(spec, resource, "<resource>");
            checkName(spec, token, "<token>");
            ReleaseOutcome result;
            try (Locks locks = connect()) {
                result = locks.release(resource, token);
            }
            spec.commandLine().getOut().println(result);
            return switch (result) {
                case RELEASED -> ExitCodes.OK;
                case NOT_OWNER -> ExitCodes.NOT_OWNER;
                case EXPIRED -> ExitCodes.EXPIRED;
            };
        }
    }

    /** {@code emq lock renew <resource> <token> --ttl <ms>}. */
    @Command(name = "renew",
            description = {"Sets the ttl of <resource> to --ttl ms if it still holds <token>.",
                "Prints RENEWED (exit code 0), NOT_OWNER (exit code 5) or EXPIRED (exit code 6); an expired "
                    + "lock is never revived. A heartbeat loop stops when the exit code is not 0."})
    static final class Renew extends Subcommand {
        @Parameters(index = "1", paramLabel = "<token>", parameterConsumer = DashValue.class,
                description = "The token printed by acquire (it may start with '-').")
        String token;
        @Option(names = "--ttl", required = true, paramLabel = "<ms>",
                description = "New ttl, 1..86400000 milliseconds (one day). Required.")
        long ttlMillis;

        @Override
        public Integer call() {
            checkName(spec, resource, "<resource>");
            checkName(spec, token, "<token>");
            Duration ttl = ttl(spec, ttlMillis);
            RenewOutcome result;
            try (Locks locks = connect()) {
                result = locks.renew(resource, token, ttl);
            }
            spec.commandLine().getOut().println(result);
            return switch (result) {
                case RENEWED -> ExitCodes.OK;
                case NOT_OWNER -> ExitCodes.NOT_OWNER;
                case EXPIRED -> ExitCodes.EXPIRED;
            };
        }
    }

    /** {@code emq lock inspect <resource> [--show-token]}. */
    @Command(name = "inspect",
            description = {"Prints the holder, its remaining ttl and the last fence.",
                "Read in one step, as%n  held token=<prefix>… label=<label> ttl_ms=<ms> fence=<n> "
                    + "renewed_ms_ago=<ms>%nor%n  free fence=<n>%n"
                    + "The token is shown by its first " + Inspect.PREFIX + " characters, enough for "
                    + "'emq lock takeover --holder'; --show-token prints it whole. label= and renewed_ms_ago= "
                    + "are - when the holder's value carries no label (a plain token, another client's). "
                    + "ttl_ms=-1 (no expiry) marks a lock set without a ttl, which nothing will ever evict.",
                "With --redlock: first held token=<token> masters=<k>/<n> fence=<largest> when one token "
                    + "holds a majority, else free fence=<largest>; then one line per master, "
                    + "master <url> followed by the line above, or unreachable."})
    static final class Inspect extends Subcommand {
        /** How many characters of a token inspect shows without {@code --show-token}. */
        static final int PREFIX = 8;

        @Option(names = "--show-token", description = "Print the holder's whole token, which releases and renews "
                + "the lock; by default only its first " + PREFIX + " characters.")
        boolean showToken;

        @Override
        public Integer call() {
            checkName(spec, resource, "<resource>");
            PrintWriter out = spec.commandLine().getOut();
            try (Locks locks = connect()) {
                if (locks instanceof RedlockClient redlock) {
                    // Redlock's inspect is the masters' verdict; this command shows each master too.
                    out.print(RedlockInspect.describe(redlock, redlock.inspectMasters(resource)));
                } else {
                    out.println(describe(locks.inspect(resource), showToken));
                }
            }
            return ExitCodes.OK;
        }

        /** @return one Redlock master's line: {@code held token=… ttl_ms=… fence=…} or {@code free fence=…}, the token whole */
        static String describe(LockInfo info) {
            if (!info.isHeld()) {
                return "free fence=" + info.lastFence();
            }
            return "held token=" + info.holderToken().orElseThrow() + " ttl_ms=" + ttl(info) + " fence=" + info.lastFence();
        }

        private static String ttl(LockInfo info) {
            return info.ttlMillis() == -1 ? "-1 (no expiry)" : Long.toString(info.ttlMillis());
        }

        /**
         * @param whole whether to print the whole token, else its first {@link #PREFIX} characters and {@code …}
         * @return {@code held token=… label=… ttl_ms=… fence=… renewed_ms_ago=…} or {@code free fence=…}
         */
        static String describe(LockInfo info, boolean whole) {
            if (!info.isHeld()) {
                return "free fence=" + info.lastFence();
            }
            String token = info.holderToken().orElseThrow();
            String shown = whole || token.length() <= PREFIX ? token : token.substring(0, PREFIX) + "…";
            return "held token=" + shown + " label=" + info.holderLabel().orElse("-") + " ttl_ms=" + ttl(info)
                    + " fence=" + info.lastFence() + " renewed_ms_ago="
                    + info.lastRenewalAgo().map(d -> Long.toString(d.toMillis())).orElse("-");
        }
    }

    // ------------------------------------------------------------------ input checks, before Redis

    static void checkName(CommandSpec spec, String value, String label) {
        if (value == null || value.isEmpty()) {
            throw new ParameterException(spec.commandLine(), label + " must not be empty");
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_RESOURCE_BYTES) {
            throw new ParameterException(spec.commandLine(), label + " is " + bytes + " bytes long; the maximum is "
                    + MAX_RESOURCE_BYTES);
        }
        // the core's own rules too (no brace in a resource, no unpaired surrogate), before connecting
        try {
            if (label.equals("<resource>")) {
                io.echomq.Names.lockResource(value);
            } else {
                io.echomq.Names.check(value, label);
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "Invalid value for " + label + ": " + e.getMessage());
        }
    }

    static Duration ttl(CommandSpec spec, long millis) {
        long max = LockClient.MAX_TTL.toMillis();
        if (millis < 1 || millis > max) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--ttl': " + millis
                    + " is not a ttl; give 1.." + max + " milliseconds");
        }
        return Duration.ofMillis(millis);
    }

    private static Duration waitTime(CommandSpec spec, long millis) {
        if (millis < 0) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--wait': " + millis
                    + " is negative; give 0 or more milliseconds");
        }
        return Duration.ofMillis(millis);
    }
}
