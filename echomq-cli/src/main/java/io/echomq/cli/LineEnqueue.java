package io.echomq.cli;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.JobRequest;
import io.echomq.queue.QueueOperations;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code emq queue enqueue <queue> --lines}: one job per line of stdin, streamed.
 *
 * <p>Duties: split stdin into lines as bytes (a line's payload is its bytes without the
 * {@code \n}, and without a {@code \r} before it), so any encoding passes unchanged; send every
 * {@link #BATCH} lines as one bulk enqueue ({@code enqueueAll}: all its script calls written before
 * the first answer is awaited), so 10,000 jobs cost ten bulks instead of 10,000 round trips, and
 * memory stays one batch whatever the input's length; print each id on stdout as its batch is
 * answered, and a progress line on stderr every {@link #PROGRESS_EVERY} jobs.
 *
 * <p>A line that is empty (unless allowed) or over the payload limit stops the run with exit code
 * 2: the lines before it are enqueued and their ids printed, and the message says how many.
 */
final class LineEnqueue {
    /** Lines per bulk enqueue. */
    static final int BATCH = 1000;
    /** A progress line on stderr after every this many jobs. */
    static final long PROGRESS_EVERY = 10_000;

    private final CommandSpec spec;
    private final QueueOperations queue;
    private final String partitionKey;
    private final EnqueueOptions options;
    private final boolean allowEmpty;
    private final int maxPayloadBytes;
    private final List<JobRequest> batch = new ArrayList<>(BATCH);
    private long enqueued;

    /**
     * @param partitionKey the partition key of every job (the queue is then sharded), or null
     * @param maxPayloadBytes the longest line accepted, in bytes
     */
    LineEnqueue(CommandSpec spec, QueueOperations queue, String partitionKey, EnqueueOptions options,
                boolean allowEmpty, int maxPayloadBytes) {
        this.spec = spec;
        this.queue = queue;
        this.partitionKey = partitionKey;
        this.options = options;
        this.allowEmpty = allowEmpty;
        this.maxPayloadBytes = maxPayloadBytes;
    }

    /**
     * Enqueues every line of {@code in}.
     *
     * @return how many jobs were enqueued
     * @throws ParameterException for an empty line (unless allowed) or a line over the limit,
     *     after the lines before it were enqueued
     * @throws io.echomq.RedisCommandException if Redis fails; the ids printed so far were enqueued
     */
    long run(InputStream in) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        InputStream input = new BufferedInputStream(in, 1 << 16);
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        long lineNumber = 0;
        boolean more = true;
        try {
            while (more) {
                int b = input.read();
                if (b != '\n' && b != -1) {
                    if (line.size() > maxPayloadBytes + 1) {
                        continue;   // already too long; keep reading to the line's end, then refuse it
                    }
                    line.write(b);
                    continue;
                }
                more = b != -1;
                if (b == -1 && line.size() == 0) {
                    break;   // no line after the last line break
                }
                lineNumber++;
                byte[] payload = line.toByteArray();
                line.reset();
                if (payload.length > 0 && payload[payload.length - 1] == '\r') {
                    payload = Arrays.copyOf(payload, payload.length - 1);
                }
                refuseIfBad(payload, lineNumber, out, err);
                batch.add(new JobRequest(payload, options));
                if (batch.size() == BATCH) {
                    send(out, err);
                }
            }
        } catch (IOException e) {
            send(out, err);
            throw new UncheckedIOException("cannot read the lines from stdin after " + enqueued + " jobs", e);
        }
        send(out, err);
        if (lineNumber == 0) {
            err.println(spec.qualifiedName() + ": no lines on stdin; nothing was enqueued");
        } else if (enqueued >= PROGRESS_EVERY) {
            err.println(spec.qualifiedName() + ": " + enqueued + " jobs enqueued, done");
        }
        err.flush();
        return enqueued;
    }

    private void refuseIfBad(byte[] payload, long lineNumber, PrintWriter out, PrintWriter err) {
        String problem = null;
        if (payload.length == 0 && !allowEmpty) {
            problem = "line " + lineNumber + " is empty (an empty payload is refused unless --allow-empty is given)";
        } else if (payload.length > maxPayloadBytes) {
            problem = "line " + lineNumber + " is over the payload limit of " + maxPayloadBytes + " bytes";
        }
        if (problem != null) {
            send(out, err);
            throw new ParameterException(spec.commandLine(), problem + "; the " + enqueued
                    + " lines before it were enqueued, nothing after it");
        }
    }

    private void send(PrintWriter out, PrintWriter err) {
        if (batch.isEmpty()) {
            return;
        }
        List<EnqueueResult> results = partitionKey == null ? queue.enqueueAll(batch)
                : queue.enqueueAll(partitionKey, batch);
        long before = enqueued;
        for (EnqueueResult r : results) {
            out.println(r.id());
        }
        out.flush();
        enqueued += results.size();
        batch.clear();
        if (enqueued / PROGRESS_EVERY > before / PROGRESS_EVERY) {
            err.println(spec.qualifiedName() + ": " + enqueued + " jobs enqueued so far");
            err.flush();
        }
    }
}
