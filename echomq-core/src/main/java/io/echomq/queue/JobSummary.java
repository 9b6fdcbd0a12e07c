package io.echomq.queue;

import java.util.OptionalLong;

/**
 * One job of a listing page ({@link QueueOperations#list}): where the job stood when the page was
 * read, and the fields of its hash that say how it got there.
 *
 * @param id         the job id ({@code <partition>-<id>} for a sharded queue)
 * @param state      the state it was listed in
 * @param attempts   the attempts granted so far (the fence); 0 when absent, -1 when not an integer
 * @param priority   its priority, 0 when absent or not an integer
 * @param score      its score in the state's sorted set: the pending score, the lease deadline,
 *                   the due time, the time of death or of completion (server epoch ms but for
 *                   pending); empty for a pending job of priority 0, which waits in the LIST
 * @param claimedAt  server epoch ms of its last claim, when it has one
 * @param finishedAt server epoch ms at which it became done or dead, when it has one
 */
public record JobSummary(String id, JobState state, long attempts, int priority, OptionalLong score,
                         OptionalLong claimedAt, OptionalLong finishedAt) {
}
