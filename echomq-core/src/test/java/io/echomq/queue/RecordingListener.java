package io.echomq.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/** A {@link WorkerListener} that keeps everything it hears, for assertions; thread-safe. */
final class RecordingListener implements WorkerListener {
    /** One {@link WorkerListener#onSettled} call. */
    record Settled(String id, long attempt, SettleOutcome outcome, Throwable error, Job job) {
    }

    /** One {@link WorkerListener#onLeaseLost} call. */
    record Lost(String id, long attempt, LeaseLossReason reason, Job job) {
    }

    private final ConcurrentLinkedQueue<Settled> settled = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Lost> lost = new ConcurrentLinkedQueue<>();

    @Override
    public void onSettled(Job job, SettleOutcome outcome, Throwable error) {
        settled.add(new Settled(job.id(), job.attempt(), outcome, error, job));
    }

    @Override
    public void onLeaseLost(Job job, LeaseLossReason reason) {
        lost.add(new Lost(job.id(), job.attempt(), reason, job));
    }

    List<Settled> settled() {
        return new ArrayList<>(settled);
    }

    /**
     * @return the job's settlements by attempt: calls for two attempts of one job may arrive in
     *     either order, since a quick retry runs on another handler thread
     */
    List<Settled> settled(String id) {
        return settled.stream().filter(s -> s.id().equals(id))
                .sorted(java.util.Comparator.comparingLong(Settled::attempt)).toList();
    }

    List<SettleOutcome> outcomes(String id) {
        return settled(id).stream().map(Settled::outcome).toList();
    }

    long count(SettleOutcome outcome) {
        return settled.stream().filter(s -> s.outcome() == outcome).count();
    }

    List<Lost> lost() {
        return new ArrayList<>(lost);
    }
}
