package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Checks the shipped {@code emq.jar} itself, after the shade step has built it: it runs in the {@code verify}
 * phase (its own surefire execution in this module's pom; the name does not end in "Test", so the ordinary
 * test run skips it). Two rules:
 * <ul>
 *   <li>the jar carries no test tool: nothing of the test kit ({@code FaultProxy}, {@code ChildJvm},
 *       {@code Garbage}, the history checkers {@code LockHistory} and {@code QueueHistory}, named exactly, since
 *       the core's own {@code ThroughputHistory} is shipped), the JUnit extension, the certificate generator), no JUnit and no
 *       BouncyCastle. The CLI depends on echomq-server, not on the test kit;</li>
 *   <li>no class of the CLI or of echomq-server refers to the core's internal package (read from the class
 *       files' constant pools, so a fully qualified use counts too).</li>
 * </ul>
 */
class ShippedJarCheck {
    private static final Pattern TEST_TOOL = Pattern.compile(
            "(^|/)(FaultProxy|ChildJvm|Garbage|LockHistory|QueueHistory|RedisExtension|TestCertificates|ReplicaPair)(\\$[^/]*)?\\.class$"
            + "|^io/echomq/testkit/|^org/junit/|^org/bouncycastle/");
    private static final byte[] INTERNAL = "io/echomq/internal/".getBytes(StandardCharsets.UTF_8);

    @Test
    void theEmqJarShipsNoTestToolAndNoOutsideUseOfTheInternals() throws IOException {
        Path jar = Path.of(System.getProperty("emq.jar", "target/emq.jar"));
        assertThat(jar).as("the shaded jar, built in the package phase (this check runs in mvn verify)").isRegularFile();
        List<String> testTools = new ArrayList<>();
        List<String> internalUsers = new ArrayList<>();
        List<String> names = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            for (JarEntry entry : file.stream().toList()) {
                String name = entry.getName();
                names.add(name);
                if (TEST_TOOL.matcher(name).find()) {
                    testTools.add(name);
                }
                boolean outsideCore = name.startsWith("io/echomq/cli/") || name.startsWith("io/echomq/server/");
                if (outsideCore && name.endsWith(".class")) {
                    try (InputStream in = file.getInputStream(entry)) {
                        if (contains(in.readAllBytes(), INTERNAL)) {
                            internalUsers.add(name);
                        }
                    }
                }
            }
        }
        assertThat(names).as("what the jar must hold").contains("io/echomq/cli/Emq.class",
                "io/echomq/server/RedisServer.class", "io/echomq/lock/LockClient.class");
        assertThat(testTools).as("test tools in %s", jar).isEmpty();
        assertThat(internalUsers).as("classes outside echomq-core that use its internal package").isEmpty();
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
