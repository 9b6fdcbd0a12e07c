/**
 * Test support for a Spring Boot application on the EchoMQ starter: {@link
 * io.echomq.test.spring.AutoConfigureEchoMQTest} points the starter at the test server, keeps its workers off, empties
 * the server before each test, and adds the {@link io.echomq.test.spring.ApplicationQueues} bean, which drains a queue
 * with the application's own {@code @EchoJobHandler} method. Needs {@code echomq-spring-boot-starter} and
 * {@code spring-test}, optional dependencies of this module that such an application's tests already have.
 */
package io.echomq.test.spring;
