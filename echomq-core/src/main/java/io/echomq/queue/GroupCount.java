package io.echomq.queue;

/**
 * One fair group's counts ({@link FairGroups}), summed over a sharded queue's partitions.
 *
 * @param group   the group key
 * @param waiting its ready jobs, waiting to be claimed (not its delayed or retrying ones)
 * @param active  its jobs running now
 * @param paused  whether the group is paused (in any partition)
 */
public record GroupCount(String group, long waiting, long active, boolean paused) {
}
