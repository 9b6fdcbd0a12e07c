package io.echomq.cli;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueEventSettings;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code emq queue event-settings <queue> [--on|--off] [--max n] [--enqueued on|off]}. */
@Command(name = "event-settings",
        description = {"Shows or sets whether the queue writes its events stream, how many events it keeps, and "
            + "whether enqueues write events too. The settings are stored with the queue, so every client and "
            + "worker applies them at its next call. A sharded queue's partitions are all set.",
            "Prints: events=on|off max=<n> enqueued=on|off"})
final class QueueEventSettingsCommand extends CreatingQueueSubcommand {
    @Option(names = "--on", description = "Write events (with the stored cap, or the default "
            + QueueEventSettings.DEFAULT_MAX_LENGTH + ").")
    boolean on;
    @Option(names = "--off", description = "Write no events.")
    boolean off;
    @Option(names = "--max", paramLabel = "<n>", description = "Events kept, 1.." + QueueEventSettings.MAX_LENGTH
            + " (XADD MAXLEN ~ n: a little more may be kept); also switches events on. Default: "
            + QueueEventSettings.DEFAULT_MAX_LENGTH + ".")
    Long max;
    @Option(names = "--enqueued", paramLabel = "on|off", description = "Whether each enqueued job writes an "
            + "enqueued event (default off).")
    String enqueued;

    @Override
    public Integer call() {
        QueueArgs.checkQueue(spec, queue);
        if (off && (on || max != null)) {
            throw new ParameterException(spec.commandLine(), "--off cannot be combined with --on or --max");
        }
        if (max != null) {
            QueueArgs.inRange(spec, "--max", max, 1, QueueEventSettings.MAX_LENGTH, "");
        }
        if (enqueued != null && !enqueued.equals("on") && !enqueued.equals("off")) {
            throw new ParameterException(spec.commandLine(), "Invalid value for --enqueued: '" + enqueued
                    + "' (on or off)");
        }
        boolean change = on || off || max != null || enqueued != null;
        try (QueueClient client = connect()) {
            if (!creates()) {
                QueueLookup.requireStored(client, queue, createHint());
            }
            int stored = client.storedPartitions(queue);
            int k = partitions != null ? partitions : stored;
            if (partitions != null && stored != 0 && stored != partitions) {
                open(client);   // refuses the mismatch, as every queue command does
            }
            List<String> names = new ArrayList<>();
            if (k == 0) {
                names.add(queue);
            } else {
                for (int i = 0; i < k; i++) {
                    names.add(queue + "#" + i);
                }
            }
            QueueEventSettings s = QueueEventSettings.read(client, names.get(0));
            if (change) {
                if (off) {
                    s = s.withMaxLength(0);
                } else if (max != null) {
                    s = s.withMaxLength(max);
                } else if (on && !s.enabled()) {
                    s = s.withMaxLength(QueueEventSettings.DEFAULT_MAX_LENGTH);
                }
                s = enqueued != null ? s.withEnqueued(enqueued.equals("on")) : s;
                for (String n : names) {
                    s.store(client, n);
                }
            }
            out().println("events=" + (s.enabled() ? "on" : "off") + " max=" + s.maxLength() + " enqueued="
                    + (s.enqueued() ? "on" : "off"));
        }
        return ExitCodes.OK;
    }
}
