/**
 * The measuring loop and the result-line format, with no dependency beyond the JDK: both our
 * benchmark JVM and each Java peer's JVM (Redisson, on its own Netty) use them, so every figure
 * in one table is measured the same way.
 */
package io.echomq.bench.loop;
