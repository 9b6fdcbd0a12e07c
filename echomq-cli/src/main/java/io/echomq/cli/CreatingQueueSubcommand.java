package io.echomq.cli;

import picocli.CommandLine.Mixin;

/**
 * A queue command that may act on a queue not stored yet, and so create it, when given
 * {@code --create} ({@link CreateOption}): the commands that store a setting on a queue or wait on
 * it. Without the option, {@link QueueSubcommand#open} refuses an unknown queue with exit code 2
 * and names {@code --create} in its message, so that a typo never makes a phantom queue.
 */
abstract class CreatingQueueSubcommand extends QueueSubcommand {
    @Mixin
    CreateOption createOption;

    @Override
    boolean creates() {
        return createOption.create;
    }

    @Override
    String createHint() {
        return "--create";
    }
}
