package io.echomq.bench;

/**
 * What one measured drain of {@code emq bench scaling} cost, and the figures of the scaling model
 * ({@code docs/scaling.md}) derived from it.
 *
 * @param topology the row's label ({@code 1 master}, {@code 3 masters}, …)
 * @param jobs the jobs drained, at least 1
 * @param seconds the drain's wall time
 * @param serverCpuSeconds the CPU of every master over the drain
 * @param busiestMasterCpuSeconds the CPU of the master that used the most
 * @param clientCpuSeconds this JVM's CPU over the drain ({@link ClientCpu})
 * @param scriptCalls the scripts every master ran over the drain
 */
record ScalingResult(String topology, long jobs, double seconds, double serverCpuSeconds,
                     double busiestMasterCpuSeconds, double clientCpuSeconds, long scriptCalls) {
    double jobsPerSecond() {
        return jobs / seconds;
    }

    double serverCpuPerJobUs() {
        return serverCpuSeconds * 1e6 / jobs;
    }

    double clientCpuPerJobUs() {
        return clientCpuSeconds * 1e6 / jobs;
    }

    double cpuPerJobUs() {
        return serverCpuPerJobUs() + clientCpuPerJobUs();
    }

    /** @return the jobs/s at which the busiest master would use all of its one thread */
    double mastersBound() {
        return jobs / busiestMasterCpuSeconds;
    }

    /** @return the jobs/s at which this run's CPU per job would use all {@code cores} of the machine */
    double coresBound(int cores) {
        return cores * 1e6 / cpuPerJobUs();
    }

    /** @return the model's jobs/s: the lower of the masters bound and the cores bound */
    double predicted(int cores) {
        return Math.min(mastersBound(), coresBound(cores));
    }

    double callsPerJob() {
        return (double) scriptCalls / jobs;
    }

    /** @return CPUs this run obtained: all its processes' CPU time over the elapsed time */
    double coresObtained() {
        return (serverCpuSeconds + clientCpuSeconds) / seconds;
    }

    /** Notes this drain's figures in {@code rec}, each name starting with {@code prefix}. */
    void recordInto(Record rec, String prefix) {
        rec.put(prefix + "jobs_per_s", jobsPerSecond());
        rec.put(prefix + "server_cpu_us_per_job", serverCpuPerJobUs());
        rec.put(prefix + "client_cpu_us_per_job", clientCpuPerJobUs());
        rec.put(prefix + "script_calls_per_job", callsPerJob());
        rec.put(prefix + "cpus_obtained", coresObtained());
        rec.put(prefix + "masters_bound_jobs_per_s", mastersBound());
    }
}
