package io.echomq.cli;

import java.util.Stack;
import picocli.CommandLine.IParameterConsumer;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Takes the next argument as the value of one positional parameter, as it is. A token minted by
 * another client or a payload may start with a dash, and picocli refuses a positional value that
 * starts with the name of a short option ({@code -h3kQ…} looks like {@code -h} with a value); this
 * consumer is only asked once picocli has found the argument is no option, so {@code -h} alone
 * stays help.
 */
final class DashValue implements IParameterConsumer {
    @Override
    public void consumeParameters(Stack<String> args, ArgSpec argSpec, CommandSpec commandSpec) {
        argSpec.setValue(args.pop());
    }
}
