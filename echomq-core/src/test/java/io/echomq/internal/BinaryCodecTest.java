package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The binary connections' codec sends, byte for byte, what the composed codec it replaced sent:
 * keys of every kind of UTF-8 (an unpaired surrogate included), values of any bytes, empty and
 * null. Its exact size is what Lettuce writes as each argument's length, so a wrong size would
 * corrupt the command; comparing whole encoded commands catches that.
 */
class BinaryCodecTest {
    private static final RedisCodec<String, byte[]> COMPOSED = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);

    private static final String[] KEYS = {"", "emq:{orders}:job:17", "ключ", "注文", "emoji 😀 key", "lone \uD800 high",
        "lone \uDC00 low"};
    private static final byte[][] VALUES = {new byte[0], "17".getBytes(StandardCharsets.US_ASCII),
        {0, (byte) 0xff, '\r', '\n', (byte) 0x80}, "注文".getBytes(StandardCharsets.UTF_8), null};

    @Test
    void encodesEveryKeyAndValueAsTheComposedCodecDid() {
        for (String key : KEYS) {
            for (byte[] value : VALUES) {
                assertThat(encoded(BinaryCodec.INSTANCE, key, value))
                        .as("key %s, value %s", key, value == null ? "null" : ByteBufUtil.hexDump(value))
                        .isEqualTo(encoded(COMPOSED, key, value));
            }
        }
    }

    @Test
    void decodesAsTheComposedCodecDid() {
        for (String key : KEYS) {
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            assertThat(BinaryCodec.INSTANCE.decodeKey(java.nio.ByteBuffer.wrap(bytes)))
                    .isEqualTo(COMPOSED.decodeKey(java.nio.ByteBuffer.wrap(bytes)));
            assertThat(BinaryCodec.INSTANCE.decodeValue(java.nio.ByteBuffer.wrap(bytes))).isEqualTo(bytes);
        }
    }

    private static String encoded(RedisCodec<String, byte[]> codec, String key, byte[] value) {
        CommandArgs<String, byte[]> args = new CommandArgs<>(codec).addKey(key).addValue(value).add(42L).add("x");
        ByteBuf buf = Unpooled.buffer();
        try {
            args.encode(buf);
            return ByteBufUtil.hexDump(buf);
        } finally {
            buf.release();
        }
    }
}
