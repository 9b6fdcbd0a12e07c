package io.echomq.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code emq} command: lock administration, an embedded Redis server and the demo that replays
 * the seed's locking scenarios.
 *
 * <pre>
 * emq lock acquire orders --ttl 30000      # OK token=… fence=1
 * emq lock inspect orders                  # held token=… ttl_ms=29950 fence=1
 * emq server                               # a redis-server on 127.0.0.1:6379
 * emq demo                                 # the five acts, each with PASS or FAIL
 * </pre>
 *
 * <p>{@link #commandLine(Map)} builds the whole command tree with its error handling, so tests
 * run exactly what {@link #main} runs; the exit codes are listed in {@link ExitCodes}.
 */
@Command(name = "emq",
        mixinStandardHelpOptions = true,
        versionProvider = Emq.Version.class,
        description = "EchoMQ: leases and fenced locks on Redis or Valkey.",
        subcommands = {LockCommands.class, ServerCommand.class, DemoCommand.class})
public final class Emq {

    Emq() {
    }

    /**
     * Runs {@code emq} and exits the JVM with its exit code.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        CommandLine cli = commandLine(System.getenv());
        cli.setOut(new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true));
        cli.setErr(new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
        System.exit(cli.execute(args));
    }

    /**
     * Builds the command tree: every subcommand, the {@code --redis} default taken from
     * {@code env}, the exit-code footer on every usage help, and the handlers that turn bad input
     * into exit code 2 and a Redis failure into exit code 3. An argument that starts with
     * {@code -} but is no option (a token such as {@code -Xk3…}) is taken as a positional value.
     *
     * @param env the environment to read {@value RedisOptions#ENV} from
     * @return a ready command line; set its out and err writers to capture output
     */
    public static CommandLine commandLine(Map<String, String> env) {
        CommandLine cli = new CommandLine(new Emq());
        // A token minted by another client may start with '-': take such an argument as a value, and
        // never split it into clustered short options.
        cli.setUnmatchedOptionsArePositionalParams(true);
        cli.setPosixClusteredShortOptionsAllowed(false);
        cli.setDefaultValueProvider(new RedisOptions.EnvDefaults(env));
        cli.setParameterExceptionHandler(new Failures());
        cli.setExecutionExceptionHandler(new Failures());
        addFooter(cli);
        return cli;
    }

    private static void addFooter(CommandLine cli) {
        cli.getCommandSpec().usageMessage()
                .footerHeading(ExitCodes.FOOTER_HEADING)
                .footer(ExitCodes.FOOTER);
        cli.getSubcommands().values().forEach(Emq::addFooter);
    }

    /** Reports the version from the jar manifest ({@code Implementation-Version}). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Emq.class.getPackage().getImplementationVersion();
            return new String[] {"emq " + (v == null ? "(development build)" : v)};
        }
    }
}
