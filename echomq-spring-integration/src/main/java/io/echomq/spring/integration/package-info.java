/**
 * A Spring Integration {@code LockRegistry} whose locks are EchoMQ's fenced, watchdog-renewed
 * leases: {@link io.echomq.spring.integration.EchoMQLockRegistry}, the bean to put where
 * {@code RedisLockRegistry} was. See {@code docs/integrations.md}.
 */
package io.echomq.spring.integration;
