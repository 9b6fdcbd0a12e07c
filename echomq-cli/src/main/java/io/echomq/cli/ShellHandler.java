package io.echomq.cli;

import io.echomq.queue.Job;
import io.echomq.queue.JobHandler;
import io.echomq.queue.JobResult;
import java.io.ByteArrayOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs the shell command for one job. Three helper threads per job feed stdin, pass stdout
 * through line by line (keeping its first {@link #RESULT_BYTES} as the job's result) and keep the
 * tail of stderr, so the handler thread only waits for the process, interruptibly: a lost lease or
 * the job's timeout (its own, its queue's or the worker's) interrupts it, and the process tree is
 * killed.
 */
final class ShellHandler implements JobHandler {
    /** Most stderr kept per command, in bytes. */
    static final int STDERR_TAIL_BYTES = 16 * 1024;
    /**
     * Most stdout stored as the job's result ({@link Job#result}), in bytes: its first
     * {@link JobResult#MAX_BYTES}, each line ending in a line feed; longer output is cut there,
     * and still printed in full.
     */
    static final int RESULT_BYTES = JobResult.MAX_BYTES;
    /** The longest error a job keeps, in characters ({@link Job#fail(String)} cuts longer ones at the end). */
    static final int MAX_ERROR_CHARS = 16 * 1024;
    /** How long a finished command's output streams may take to reach end of file. */
    static final long DRAIN_WAIT_MS = 2_000;

    private final String command;
    private final PrintWriter out;
    private final ExecutorService pumps;
    private final Set<Process> running = ConcurrentHashMap.newKeySet();

    ShellHandler(String command, PrintWriter out, ExecutorService pumps) {
        this.command = command;
        this.out = out;
        this.pumps = pumps;
    }

    @Override
    public void handle(Job job) throws Exception {
        ProcessBuilder pb = CommandProcesses.builder(List.of("/bin/sh", "-c", command));
        Map<String, String> env = pb.environment();
        env.put("EMQ_QUEUE", job.queueName());
        env.put("EMQ_JOB_ID", job.id());
        env.put("EMQ_JOB_ATTEMPT", Long.toString(job.attempt()));
        Process process = pb.start();
        running.add(process);
        int status;
        Tail stderr = new Tail(STDERR_TAIL_BYTES);
        ByteArrayOutputStream kept = new ByteArrayOutputStream();
        try {
            byte[] payload = job.payload();
            pumps.execute(() -> feed(process.getOutputStream(), payload));
            Future<?> stdout = pumps.submit(() -> passThrough(process.getInputStream(), kept));
            Future<?> errors = pumps.submit(() -> stderr.readAll(process.getErrorStream()));
            try {
                status = process.waitFor();
            } catch (InterruptedException lost) {
                kill(process);   // the lease is lost, the timeout passed, or the shutdown's grace ran out
                awaitDeath(process);   // so that no command outlives the handler that ran it
                throw lost;
            }
            drain(stdout);
            drain(errors);
        } finally {
            running.remove(process);
        }
        if (status != 0) {
            job.fail(error(stderr.text(), status));
            return;
        }
        byte[] result;
        synchronized (kept) {
            result = kept.toByteArray();
        }
        if (result.length > 0) {
            job.result(result);   // false: the lease is lost, and the complete after it is refused too
        }
    }

    /** Kills every command still running, and waits a little for each to die. */
    void killAll() {
        for (Process p : new ArrayList<>(running)) {
            kill(p);
        }
        for (Process p : new ArrayList<>(running)) {
            try {
                p.waitFor(WorkerCommand.KILL_WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void feed(OutputStream stdin, byte[] payload) {
        try (stdin) {
            stdin.write(payload);
        } catch (IOException commandDidNotRead) {
            // a command that exits without reading its stdin closes the pipe: not an error
        }
    }

    private void passThrough(InputStream stdout, ByteArrayOutputStream kept) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(stdout, StandardCharsets.UTF_8
                .newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE)))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                out.println(line);   // one line at a time, so concurrent commands do not mix within a line
                out.flush();
                byte[] b = (line + "\n").getBytes(StandardCharsets.UTF_8);
                synchronized (kept) {
                    kept.write(b, 0, Math.max(0, Math.min(b.length, RESULT_BYTES - kept.size())));
                }
            }
        } catch (IOException closed) {
            // the process was killed
        }
    }

    private static void drain(Future<?> pump) throws InterruptedException {
        try {
            pump.get(DRAIN_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            // a background child still holds the stream open; leave the pump to finish on its own
        } catch (ExecutionException e) {
            // the pump failed; what it read so far is kept
        }
    }

    /**
     * Waits up to {@link WorkerCommand#KILL_WAIT_MS} for a killed process to be reaped. A SIGKILL is delivered
     * asynchronously, so without this wait the handler (and a stopping worker after it) could return while the
     * command is still alive. An interrupt during the wait ends it early and is kept for the caller.
     */
    static void awaitDeath(Process process) {
        try {
            process.waitFor(WorkerCommand.KILL_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException again) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills the process and every process it started (its process group and descendants), at once. */
    static void kill(Process process) {
        CommandProcesses.killTree(process);
    }

    /** @return the stderr tail and {@code exit status N}, at most {@link #MAX_ERROR_CHARS} characters */
    static String error(String stderr, int status) {
        String suffix = "exit status " + status;
        String text = stderr.isEmpty() ? suffix : stderr + (stderr.endsWith("\n") ? "" : "\n") + suffix;
        if (text.length() > MAX_ERROR_CHARS) {
            text = "…" + text.substring(text.length() - (MAX_ERROR_CHARS - 1));
        }
        return text;
    }
}
