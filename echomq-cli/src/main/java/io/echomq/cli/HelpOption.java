package io.echomq.cli;

import picocli.CommandLine.Option;

/**
 * {@code -h} and {@code --help} for the commands that take values which may start with a dash
 * (a token minted by another client, a payload). Only the exact token {@code -h} is help: with
 * clustered short options off, a value such as {@code -h3kQ…} stays a value, and a value that is
 * exactly {@code -h} goes after a lone {@code --}. No {@code -V} here, so {@code -V…} stays a value.
 */
final class HelpOption {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean help;
}
