package io.echomq.lock;

/**
 * A value read from a {@link FencedStore}, with the fence of the write that stored it.
 *
 * @param value the stored value
 * @param fence the fence of the accepted write
 */
public record FencedValue(String value, long fence) {
}
