package io.echomq.cli;

import picocli.CommandLine.Option;

/**
 * {@code --create}, for the commands that would store something under a queue that does not exist
 * yet: without it they refuse an unknown queue (exit code 2), so that a typo never makes a phantom.
 */
final class CreateOption {
    /** The help text of {@code --create}. */
    static final String DESCRIPTION = "Act even when no queue of this name is stored yet (a command that stores "
            + "something on it then creates it). Without it, an unknown queue is refused with exit code 2 and the "
            + "stored names close to it, so that a typo never makes a phantom queue.";

    @Option(names = "--create", description = DESCRIPTION)
    boolean create;
}
