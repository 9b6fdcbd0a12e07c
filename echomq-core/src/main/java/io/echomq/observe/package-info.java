/**
 * Watching locks and queues with one hook: {@link io.echomq.observe.Instrumentation} joins the lock's
 * {@link io.echomq.lock.LockInstrumentation} and the queue's {@link io.echomq.queue.QueueInstrumentation},
 * so that a metrics or tracing library implements one type and sets it on every client. It depends
 * on both sides; neither side depends on it.
 */
package io.echomq.observe;
