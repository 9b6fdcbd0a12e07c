/**
 * The EchoMQ web dashboard: a page of every queue, a queue's jobs by state, one job, and the
 * operator's actions, on the JDK's own HTTP server ({@link io.echomq.dashboard.Dashboard}) or
 * inside a web application's servlet container below a path such as {@code /echomq}
 * ({@link io.echomq.dashboard.DashboardServlet}).
 */
package io.echomq.dashboard;
