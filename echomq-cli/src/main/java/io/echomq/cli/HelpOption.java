package io.echomq.cli;

import picocli.CommandLine.Option;

/**
 * {@code --help} alone, without the short {@code -h}, for commands whose arguments may start
 * with a dash: picocli would read a token such as {@code -h3kQ…} as {@code -h} plus a value.
 */
final class HelpOption {
    @Option(names = "--help", usageHelp = true, description = "Show this help message and exit.")
    boolean help;
}
