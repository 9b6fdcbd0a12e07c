package io.echomq.internal;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.codec.ToByteBufEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;

/**
 * The codec of the binary connections: UTF-8 string keys, byte-array values, written straight
 * into the command's buffer.
 *
 * <ol>
 *   <li>Sends exactly the bytes that {@code RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE)}
 *       sends: a key as its UTF-8 bytes (Netty's {@code writeUtf8}, as {@code StringCodec.UTF8}
 *       writes it), a value as is, a null as empty.</li>
 *   <li>Encodes into the command's own buffer ({@link ToByteBufEncoder}), with an exact size
 *       ({@link #estimateSize}: a key's UTF-8 length as {@code ByteBufUtil.utf8Bytes} counts it,
 *       which is what {@code writeUtf8} writes), so that Lettuce writes the length header and then
 *       the bytes. A composed codec is not a {@code ToByteBufEncoder}, so Lettuce wrapped every
 *       argument in a {@link ByteBuffer} first: two objects per argument, and a worker's complete
 *       sends two arguments per job.</li>
 *   <li>Decodes as the composed codec did: keys through {@code StringCodec.UTF8}, values through
 *       {@code ByteArrayCodec}.</li>
 * </ol>
 *
 * <p>Stateless and thread-safe; one instance serves every connection.
 */
final class BinaryCodec implements RedisCodec<String, byte[]>, ToByteBufEncoder<String, byte[]> {
    static final BinaryCodec INSTANCE = new BinaryCodec();

    private BinaryCodec() {
    }

    @Override
    public String decodeKey(ByteBuffer bytes) {
        return StringCodec.UTF8.decodeKey(bytes);
    }

    @Override
    public byte[] decodeValue(ByteBuffer bytes) {
        return ByteArrayCodec.INSTANCE.decodeValue(bytes);
    }

    @Override
    public ByteBuffer encodeKey(String key) {
        return StringCodec.UTF8.encodeKey(key);
    }

    @Override
    public ByteBuffer encodeValue(byte[] value) {
        return ByteArrayCodec.INSTANCE.encodeValue(value);
    }

    @Override
    public void encodeKey(String key, ByteBuf target) {
        if (key != null) {
            ByteBufUtil.writeUtf8(target, key);
        }
    }

    @Override
    public void encodeValue(byte[] value, ByteBuf target) {
        if (value != null) {
            target.writeBytes(value);
        }
    }

    /** @return the exact number of bytes {@link #encodeKey(String, ByteBuf)} or {@link #encodeValue(byte[], ByteBuf)} writes */
    @Override
    public int estimateSize(Object keyOrValue) {
        if (keyOrValue == null) {
            return 0;
        }
        if (keyOrValue instanceof byte[] bytes) {
            return bytes.length;
        }
        return ByteBufUtil.utf8Bytes((CharSequence) keyOrValue);
    }

    /** @return true: {@link #estimateSize} is exact for keys and values alike */
    @Override
    public boolean isEstimateExact() {
        return true;
    }
}
