/**
 * {@link io.echomq.spring.lock.Locked}: a bean method that runs only while holding an EchoMQ lock,
 * with the busy policies, the lease as a parameter, and the loss signal.
 */
package io.echomq.spring.lock;
