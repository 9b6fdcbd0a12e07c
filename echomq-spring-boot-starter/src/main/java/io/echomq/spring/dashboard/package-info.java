/** The EchoMQ dashboard served by a Spring Boot servlet application at {@code echomq.dashboard.path}. */
package io.echomq.spring.dashboard;
