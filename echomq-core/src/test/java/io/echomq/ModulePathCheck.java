package io.echomq;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.Lease;
import io.echomq.lock.LockClient;
import io.echomq.lock.ReleaseOutcome;
import io.echomq.server.RedisServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The module descriptor, exercised: this class runs only in the {@code module-path} surefire execution of
 * echomq-core (the name does not end in "Test", so the class-path run skips it), where the core is the named
 * module {@code io.echomq.core} and Lettuce, Netty and SLF4J are modules too.
 *
 * <ul>
 *   <li>The core really is a named module here, so the rest of this class is about the descriptor.</li>
 *   <li>It exports {@code io.echomq}, {@code io.echomq.lock}, {@code io.echomq.queue}, {@code io.echomq.observe}
 *       and {@code io.echomq.audit}, and not the engine.</li>
 *   <li>A user module that requires it compiles against the exports, and one that imports the engine does not
 *       compile (javac, on the same module path).</li>
 *   <li>A lock round trip on a real server works with the core on the module path (Lettuce and Netty as
 *       modules, and the engine's reflective read of Lettuce's endpoint).</li>
 * </ul>
 */
class ModulePathCheck {
    private static final Module CORE = LockClient.class.getModule();

    @Test
    void theCoreRunsAsTheNamedModule() {
        assertThat(CORE.isNamed()).as("io.echomq.core on the module path").isTrue();
        assertThat(CORE.getName()).isEqualTo("io.echomq.core");
    }

    @Test
    void itExportsThePublicPackagesAndNotTheEngine() {
        ModuleDescriptor descriptor = CORE.getDescriptor();
        assertThat(descriptor.exports()).allMatch(e -> !e.isQualified())
                .extracting(ModuleDescriptor.Exports::source)
                .containsExactlyInAnyOrder("io.echomq", "io.echomq.lock", "io.echomq.queue", "io.echomq.observe",
                        "io.echomq.audit");
        assertThat(CORE.isExported("io.echomq.internal")).isFalse();
        assertThat(CORE.isOpen("io.echomq.internal")).isFalse();
        assertThat(descriptor.requires()).extracting(ModuleDescriptor.Requires::name)
                .contains("lettuce.core", "org.slf4j");
    }

    @Test
    void aUserModuleCompilesAgainstTheExportsButCannotSeeTheEngine() throws IOException, InterruptedException {
        String usesTheApi = """
                package app;
                import io.echomq.Names;
                import io.echomq.RedisUrl;
                import io.echomq.lock.LockClient;
                import io.echomq.queue.QueueClient;
                public class Main {
                    public static void main(String[] args) {
                        System.out.println(Names.lockResource("orders") + RedisUrl.redact(args[0]));
                        LockClient.builder();
                        QueueClient.builder();
                    }
                }
                """;
        String usesTheEngine = """
                package app;
                public class Main {
                    public static void main(String[] args) {
                        io.echomq.internal.Checks.jobId(args[0]);
                    }
                }
                """;
        assertThat(compileUserModule(usesTheApi)).as("a user of the exports").isEmpty();
        assertThat(compileUserModule(usesTheEngine)).as("a user of the engine")
                .contains("io.echomq.internal").contains("not visible");
    }

    @Test
    void aLockRoundTripRunsOnTheModulePath() {
        try (RedisServer server = RedisServer.start(); LockClient locks = LockClient.create(server.url())) {
            Optional<Lease> lease = locks.tryAcquire("module-path", Duration.ofSeconds(10));
            assertThat(lease).isPresent();
            assertThat(locks.tryAcquire("module-path", Duration.ofSeconds(10))).isEmpty();
            assertThat(lease.get().release()).isEqualTo(ReleaseOutcome.RELEASED);
        }
    }

    /**
     * @return javac's diagnostics for module {@code app} holding {@code main}; empty when it compiled. The JDK's
     *     own {@code javac} runs as a process: this class is patched into the core, which does not read
     *     {@code java.compiler}.
     */
    private static String compileUserModule(String main) throws IOException, InterruptedException {
        String modulePath = System.getProperty("jdk.module.path");
        assertThat(modulePath).as("the module path of this JVM").isNotBlank();
        Path dir = Files.createTempDirectory("echomq-user-module");
        try {
            Path src = Files.createDirectories(dir.resolve("src/app"));
            Files.writeString(dir.resolve("src/module-info.java"), "module app { requires io.echomq.core; }\n");
            Files.writeString(src.resolve("Main.java"), main);
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "javac")
                    .toString(), "-d", dir.resolve("out").toString(), "--module-path", modulePath, "-proc:none",
                    dir.resolve("src/module-info.java").toString(), src.resolve("Main.java").toString()));
            Path log = dir.resolve("javac.log");
            Process javac = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            assertThat(javac.waitFor(120, TimeUnit.SECONDS)).as("javac finished").isTrue();
            String out = Files.readString(log, StandardCharsets.UTF_8);
            return javac.exitValue() == 0 ? "" : "exit " + javac.exitValue() + ": " + out;
        } finally {
            try (var walk = Files.walk(dir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
