/**
 * The EchoMQ web dashboard ({@link io.echomq.dashboard.Dashboard}): a page of every queue, a
 * queue's jobs by state, one job, and the operator's actions, on the JDK's own HTTP server.
 */
package io.echomq.dashboard;
