package io.echomq.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.testkit.RedisExtension;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The outbox program of docs/jdbc.md, read out of the page, compiled with javac on this module's test class path
 * and run exactly as it stands. The core's docs tests cannot run it (they have neither this module nor H2), so the
 * page marks it "not run" and names this test.
 */
class OutboxDocTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();
    private static final Pattern BLOCK = Pattern.compile(
            "(<!-- not run: [^\\n]*OutboxDocTest[^\\n]*-->)\\n```java\\n(.*?public class OutboxQuickStart.*?)```",
            Pattern.DOTALL);

    @Test
    void theQuickStartRunsAsItStandsInThePage() throws Exception {
        REDIS.flushAll();
        String page = Files.readString(Path.of("..", "docs", "jdbc.md"), StandardCharsets.UTF_8);
        Matcher m = BLOCK.matcher(page);
        assertThat(m.find()).as("the page holds OutboxQuickStart, marked as run by this test").isTrue();
        Path dir = Files.createTempDirectory("emq-outbox-doc");
        Path source = dir.resolve("OutboxQuickStart.java");
        Files.writeString(source, m.group(2), StandardCharsets.UTF_8);
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, errors, errors, "-proc:none",
                "-cp", System.getProperty("java.class.path"), "-d", dir.toString(), source.toString());
        assertThat(rc).as(errors.toString(StandardCharsets.UTF_8)).isZero();

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            Method main = loader.loadClass("OutboxQuickStart").getMethod("main", String[].class);
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[] {REDIS.url()});
        } finally {
            System.setOut(saved);
        }
        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).containsExactly("relayed: 1", "pending: 1", "lag: PT0S");
    }
}
