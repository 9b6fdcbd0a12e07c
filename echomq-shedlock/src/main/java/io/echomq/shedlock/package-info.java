/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} over EchoMQ's fenced leases:
 * {@link io.echomq.shedlock.EchoMQLockProvider}. Teams keep their {@code @SchedulerLock}
 * annotations and change the one {@code LockProvider} bean. See {@code docs/integrations.md}.
 */
package io.echomq.shedlock;
