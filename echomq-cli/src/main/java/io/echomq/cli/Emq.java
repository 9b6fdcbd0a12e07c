package io.echomq.cli;

import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code emq} command: lock and queue administration, a shell-command worker, an embedded Redis
 * server and the demo that replays the classic distributed-locking failure scenarios.
 *
 * <pre>
 * emq lock acquire orders --ttl 30000      # OK token=… fence=1764604800123456
 * emq lock inspect orders                  # held token=… ttl_ms=29950 fence=1764604800123456
 * emq queue enqueue emails '{"to":"ada"}'  # 1
 * emq queue stats emails                   # pending=1 active=0 delayed=0 dead=0 …
 * emq worker emails --exec 'send-mail'     # runs send-mail once per job, payload on stdin
 * emq schedule add emails digest '{}' --cron '0 8 * * *' --zone Europe/Berlin
 * emq scheduler emails                     # fires the schedules of emails where no worker runs
 * emq server                               # a redis-server on 127.0.0.1:6379
 * emq demo                                 # the six acts, each with PASS or FAIL
 * emq dashboard --redis redis://10.0.0.5   # a web page of every queue; prints the URL to open
 * emq top --redis redis://10.0.0.5         # every queue, one line each, refreshed in place
 * </pre>
 *
 * <p>{@link #commandLine(Map)} builds the whole command tree with its error handling, so tests
 * run exactly what {@link #main} runs; the exit codes are listed in {@link ExitCodes}.
 */
@Command(name = "emq",
        mixinStandardHelpOptions = true,
        versionProvider = Emq.Version.class,
        description = {"EchoMQ: leases, fenced locks and a claim-lease job queue on Redis or Valkey.",
            "Also, run by ./emq from a source tree: bench  Measures EchoMQ against its peers "
                + "(./emq bench locks|queue|scaling; ./emq bench locks --help)."},
        subcommands = {LockCommands.class, QueueCommands.class, ScheduleCommands.class, WorkerCommand.class,
            SchedulerCommand.class, ServerCommand.class, DemoCommand.class, DashboardCommand.class, TopCommand.class,
            AuditCommand.class})
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
        return commandLine(env, System.in);
    }

    /**
     * As {@link #commandLine(Map)}, with the stream {@code emq queue enqueue <queue> -} reads its
     * payload from instead of {@link System#in}.
     *
     * @param env   the environment to read {@value RedisOptions#ENV} from
     * @param stdin the standard input of the commands; not closed by them
     * @return a ready command line; set its out and err writers to capture output
     * @throws NullPointerException if stdin is null
     */
    public static CommandLine commandLine(Map<String, String> env, InputStream stdin) {
        return commandLine(env, new ConfirmOptions.Terminal(stdin, ConfirmOptions.Terminal::console));
    }

    /**
     * As {@link #commandLine(Map, InputStream)}, with {@code terminal} saying whether a destructive
     * command may ask its question on that standard input.
     *
     * @throws NullPointerException if terminal or its stream is null
     */
    static CommandLine commandLine(Map<String, String> env, ConfirmOptions.Terminal terminal) {
        InputStream stdin = java.util.Objects.requireNonNull(terminal.in(), "stdin");
        CommandLine cli = new CommandLine(new Emq());
        // A token minted by another client may start with '-': take such an argument as a value, and
        // never split it into clustered short options.
        cli.setUnmatchedOptionsArePositionalParams(true);
        cli.setPosixClusteredShortOptionsAllowed(false);
        cli.setDefaultValueProvider(new RedisOptions.EnvDefaults(env));
        cli.setParameterExceptionHandler(new Failures());
        cli.setExecutionExceptionHandler(new Failures());
        addFooter(cli);
        QueueEnqueueCommand enqueue = cli.getSubcommands().get("queue").getSubcommands().get("enqueue").getCommand();
        enqueue.stdin = stdin;
        giveTerminal(cli, terminal);
        LockTakeoverCommand takeover = cli.getSubcommands().get("lock").getSubcommands().get("takeover").getCommand();
        takeover.stdin = stdin;
        takeover.terminal = terminal.attended();
        return cli;
    }

    /** Gives every command's {@link ConfirmOptions} the terminal its question is asked on. */
    private static void giveTerminal(CommandLine cli, ConfirmOptions.Terminal terminal) {
        for (CommandLine.Model.CommandSpec mixin : cli.getCommandSpec().mixins().values()) {
            if (mixin.userObject() instanceof ConfirmOptions confirm) {
                confirm.terminal = terminal;
            }
        }
        cli.getSubcommands().values().forEach(sub -> giveTerminal(sub, terminal));
    }

    private static void addFooter(CommandLine cli) {
        String path = cli.getCommandSpec().qualifiedName(" ").replaceFirst("^emq ?", "");
        cli.getCommandSpec().usageMessage()
                .footerHeading(ExitCodes.FOOTER_HEADING)
                .footer(ExitCodes.footer(path));
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
