/** The actuator parts: the {@code echomq} health indicator and the info contributor. */
package io.echomq.spring.actuate;
