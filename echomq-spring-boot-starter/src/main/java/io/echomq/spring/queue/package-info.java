/**
 * {@link io.echomq.spring.queue.EchoJobHandler}: a bean method as a queue's handler, run by a
 * worker that lives as long as the application context; {@link io.echomq.spring.queue.EchoSchedule}:
 * a recurring schedule of that handler's queue, upserted at startup; the payload codec shared with
 * {@link io.echomq.spring.queue.EchoMQTemplate}, the enqueue helper.
 */
package io.echomq.spring.queue;
