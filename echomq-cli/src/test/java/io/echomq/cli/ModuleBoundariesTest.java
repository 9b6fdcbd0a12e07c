package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The engine in the core's {@code internal} package is echomq-core's alone: no other module of the tree names it, in code,
 * tests or docs comments, so it can change without breaking anything else. What the other modules need is
 * public API in {@code io.echomq} ({@code Names}, {@code RedisUrl}). The module descriptor hides the package
 * from users on the module path; this test is the check for the modules built with it on the class path.
 */
class ModuleBoundariesTest {
    /** Spelled in two parts so that this file does not name the package it looks for. */
    private static final String INTERNAL = "io.echomq." + "internal";

    @Test
    void noModuleButTheCoreNamesTheInternalPackage() {
        Path root = Path.of(System.getProperty("user.dir")).toAbsolutePath().getParent();
        List<Path> modules = modules(root);
        assertThat(modules).as("modules the root pom lists, from %s", root)
                .extracting(p -> root.relativize(p).toString())
                .contains("echomq-cli", "echomq-testkit", "echomq-server", "examples/spring-boot");

        List<String> offences = new ArrayList<>();
        for (Path module : modules) {
            if (module.getFileName().toString().equals("echomq-core")) {
                continue;
            }
            try (Stream<Path> files = Files.walk(module.resolve("src"))) {
                files.filter(f -> f.toString().endsWith(".java")).forEach(f -> scan(root, f, offences));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        assertThat(offences).as("uses of %s outside echomq-core", INTERNAL).isEmpty();
    }

    /** @return every module the root pom lists (nested ones, as examples/spring-boot, too) */
    private static List<Path> modules(Path root) {
        try {
            String pom = Files.readString(root.resolve("pom.xml"));
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("<module>([^<]+)</module>").matcher(pom);
            List<Path> modules = new ArrayList<>();
            while (m.find()) {
                Path module = root.resolve(m.group(1).strip());
                if (Files.isDirectory(module.resolve("src"))) {
                    modules.add(module);
                }
            }
            return modules;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void scan(Path root, Path file, List<String> offences) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(INTERNAL)) {
                offences.add(root.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
            }
        }
    }
}
