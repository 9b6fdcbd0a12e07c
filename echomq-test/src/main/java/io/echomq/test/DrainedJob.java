package io.echomq.test;

import io.echomq.queue.SettleOutcome;

/**
 * One job a {@link QueueDrain} ran.
 *
 * @param id      the job's id
 * @param payload its payload, decoded as UTF-8
 * @param attempt the attempt that ran, from 1
 * @param outcome how the attempt settled: {@link SettleOutcome#COMPLETED} when the handler returned, or what the
 *                handler's own settle answered
 */
public record DrainedJob(String id, String payload, long attempt, SettleOutcome outcome) {
}
