package io.echomq.queue;

/**
 * Where one job lives: the partition that holds it and its id there. A plain queue's jobs live in
 * its one partition under the id the user sees; a sharded queue's id {@code <partition>-<id>} names
 * the partition and the id within it.
 *
 * @param partition the partition that holds the job
 * @param localId   the job's id in that partition
 */
record JobHome(Partition partition, String localId) {

    /** @return the line to the partition's keys */
    QueueWire wire() {
        return partition.wire();
    }
}
