package io.echomq.bench;

import java.util.Map;

/**
 * The CPU one phase of {@code emq bench queue} cost per job, on the Redis server and on the
 * client. Its duties:
 *
 * <ol>
 *   <li>{@link #start}: read the server's {@code INFO cpu} ({@code used_cpu_sys + used_cpu_user}),
 *       the server's {@code INFO commandstats} and this JVM's CPU clocks ({@link ClientCpu});</li>
 *   <li>{@link Start#stop}: read them again and divide the deltas by the phase's jobs.</li>
 * </ol>
 *
 * <p>The client figure is the whole JVM's CPU time ({@link ClientCpu}: every thread's own clock,
 * to the nanosecond, so that a phase of a few milliseconds still measures), not the calling
 * thread's: our side runs in this JVM, and Lettuce's event-loop threads and the worker's threads
 * do much of the work. It includes the bench's own loop and whatever else this JVM did in the
 * phase (its garbage collector, JIT compilation). The server figure is the server process's own CPU, so a
 * CPU hog beside it ({@code --load}) does not enter it; it counts everything the server did in
 * the phase, which in the bench is this phase alone.
 *
 * <p>The client's context switches per job count the times this JVM's threads were switched onto a
 * CPU in the phase ({@link ClientCpu#switchesBetween}): the cost of hand-offs between threads, which a
 * dispatch that wakes a thread per job pays once or more per job.
 *
 * @param serverUsPerJob       server CPU µs per job, NaN when not measured
 * @param clientUsPerJob       client CPU µs per job, NaN when not measured
 * @param clientSwitchesPerJob the client's context switches per job, NaN when not measured
 */
record PhaseCpu(double serverUsPerJob, double clientUsPerJob, double clientSwitchesPerJob) {
    /** Not measured (a side that did not run). */
    static final PhaseCpu NONE = new PhaseCpu(Double.NaN, Double.NaN, Double.NaN);

    /** What a phase measured, with the commands the server ran in it. */
    record Measured(PhaseCpu cpu, Map<String, CommandStats.Stat> commands) {
    }

    /** The readings at the start of a phase. */
    record Start(BenchServer server, double serverCpuSeconds, ClientCpu.Reading client,
                 Map<String, CommandStats.Stat> commands) {
        /**
         * @param jobs the jobs of the phase, at least 1
         * @return the deltas since {@link #start}, per job
         */
        Measured stop(long jobs) {
            ClientCpu.Reading clientNow = ClientCpu.read();
            long clientNanos = ClientCpu.between(client, clientNow);
            long switches = ClientCpu.switchesBetween(client, clientNow);
            double serverNow = serverSeconds(server);
            Map<String, CommandStats.Stat> after = CommandStats.parse(server.sync().info("commandstats"));
            double serverPerJob = (serverNow - serverCpuSeconds) * 1e6 / jobs;
            double clientPerJob = clientNanos < 0 ? Double.NaN : clientNanos / 1e3 / jobs;
            double switchesPerJob = switches < 0 ? Double.NaN : (double) switches / jobs;
            return new Measured(new PhaseCpu(serverPerJob, clientPerJob, switchesPerJob),
                    CommandStats.delta(commands, after));
        }
    }

    /** @return the readings at the start of a phase on {@code server} */
    static Start start(BenchServer server) {
        Map<String, CommandStats.Stat> commands = CommandStats.parse(server.sync().info("commandstats"));
        double serverSeconds = serverSeconds(server);
        return new Start(server, serverSeconds, ClientCpu.read(), commands);
    }

    /** @return the server's {@code used_cpu_sys + used_cpu_user}, in seconds */
    static double serverSeconds(BenchServer server) {
        return cpuSeconds(server.sync().info("cpu"));
    }

    /**
     * @param info an {@code INFO cpu} reply
     * @return its {@code used_cpu_sys + used_cpu_user}, in seconds
     * @throws IllegalArgumentException if either field is missing
     */
    static double cpuSeconds(String info) {
        String sys = BenchServer.field(info, "used_cpu_sys");
        String user = BenchServer.field(info, "used_cpu_user");
        if (sys.equals("?") || user.equals("?")) {
            throw new IllegalArgumentException("INFO cpu without used_cpu_sys and used_cpu_user: " + info);
        }
        return Double.parseDouble(sys) + Double.parseDouble(user);
    }
}
