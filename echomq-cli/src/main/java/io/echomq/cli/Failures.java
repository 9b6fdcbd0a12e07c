package io.echomq.cli;

import io.echomq.RedisUrl;
import io.echomq.RedisCommandException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Turns every failure into one line on stderr and an exit code (see {@link ExitCodes}).
 *
 * <ul>
 *   <li>Bad input, found by picocli while parsing or by a command or the core as an
 *       {@link IllegalArgumentException}: exit code 2.</li>
 *   <li>A Redis failure ({@link RedisCommandException}), a connection failure explained by
 *       {@link ConnectErrors}, or an embedded server that did not start
 *       ({@link EmbeddedServer.StartException}): exit code 3.</li>
 *   <li>Anything else is a bug: the stack trace is printed and the exit code is 4.</li>
 * </ul>
 */
final class Failures implements IParameterExceptionHandler, IExecutionExceptionHandler {

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        String name = cmd.getCommandSpec().qualifiedName();
        PrintWriter err = cmd.getErr();
        err.println(name + ": " + oneLine(ex.getMessage()) + " (see '" + name + " --help')");
        err.flush();
        return ExitCodes.BAD_INPUT;
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parseResult) {
        String name = cmd.getCommandSpec().qualifiedName();
        PrintWriter err = cmd.getErr();
        int code;
        if (ex instanceof IllegalArgumentException) {
            err.println(name + ": " + oneLine(ex.getMessage()));
            code = ExitCodes.BAD_INPUT;
        } else if (ex instanceof RedisCommandException) {
            err.println(name + ": " + oneLine(withRootCause(ex)));
            code = ExitCodes.REDIS_FAILURE;
        } else if (ex instanceof ConnectErrors.Explained) {
            // built from host, port and redacted URLs only, and it shows redis://:PASSWORD@ as a
            // template, which redaction would hide
            err.println(name + ": " + ex.getMessage());
            code = ExitCodes.REDIS_FAILURE;
        } else if (ex instanceof EmbeddedServer.StartException) {
            err.println(name + ": " + oneLine(ex.getMessage()));
            code = ExitCodes.REDIS_FAILURE;
        } else {
            err.println(name + ": unexpected error: " + oneLine(String.valueOf(ex)));
            ex.printStackTrace(err);
            code = ExitCodes.INTERNAL_ERROR;
        }
        err.flush();
        return code;
    }

    /** @return the message, followed by the root cause's message when it adds something */
    static String withRootCause(Throwable ex) {
        String message = String.valueOf(ex.getMessage());
        Throwable root = ex;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String rootMessage = root.getMessage();
        if (root != ex && rootMessage != null && !message.contains(rootMessage)) {
            return message + " (" + rootMessage + ")";
        }
        return message;
    }

    /**
     * @return {@code text} on one line: line breaks become "; ", surrounding blanks trimmed, and the
     *     user-info of any Redis URL in it (picocli echoes a misplaced argument) replaced by {@code ***}
     */
    static String oneLine(String text) {
        return text == null ? "" : RedisUrl.redactAll(text.strip().replaceAll("\\s*\\R\\s*", "; "));
    }
}
