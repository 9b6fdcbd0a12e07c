/**
 * EchoMQ for Spring Boot 4: the auto-configuration ({@link io.echomq.spring.EchoMQAutoConfiguration},
 * {@link io.echomq.spring.EchoMQActuatorAutoConfiguration}), the {@code echomq.*} properties
 * ({@link io.echomq.spring.EchoMQProperties}) and the one-line report of a bad one
 * ({@link io.echomq.spring.EchoMQFailureAnalyzer}). The clients' meters and spans are in
 * {@code io.echomq.spring.observe}. {@code docs/spring.md} is the guide.
 */
package io.echomq.spring;
