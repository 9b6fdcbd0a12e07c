package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.spi.ToolProvider;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lock stands alone: the sources of {@code io.echomq.lock}, of the base package {@code io.echomq},
 * of the engine {@code io.echomq.internal} and of the audit trail's API {@code io.echomq.audit} compile
 * together with only the third-party jars on the class path (Lettuce, its Netty and Reactor, SLF4J),
 * so without {@code io.echomq.queue}. The layers of the core point one way,
 * {@code queue -> lock -> internal -> audit -> base} (the audit trail's types are values and an
 * interface that both clients hand out, implemented in the engine); a lock type that
 * names a queue type, or a base type that names a lock or queue type, fails here, and the failure
 * lists each reference the compiler could not resolve and each import of the queue package. The
 * base package, the bottom layer, imports none of the packages below it.
 */
class LockStandsAloneTest {
    private static final Path MAIN = Path.of("src", "main", "java");
    /** A line of javac's report that starts an error: file, line, message. */
    private static final Pattern ERROR = Pattern.compile("(.+\\.java):(\\d+): error: (.*)");
    /** An import of a package below {@code io.echomq}: {@code internal}, {@code lock}, {@code queue}, ... */
    private static final Pattern BASE_REACHES_DOWN = Pattern.compile("^\\s*import (static )?io\\.echomq\\.[a-z]+\\.");
    private static final List<String> PACKAGES = List.of("io/echomq", "io/echomq/lock", "io/echomq/internal",
            "io/echomq/audit");

    @Test
    void lockBaseAndInternalCompileWithoutTheQueuePackage(@TempDir Path out) throws IOException {
        List<Path> sources = sources(MAIN);
        assertThat(sources).as("no sources found under %s", MAIN.toAbsolutePath()).isNotEmpty();
        assertThat(sources).anyMatch(p -> p.endsWith(Path.of("io", "echomq", "lock", "LockClient.java")));

        assertThat(compile(sources, thirdPartyClassPath(), out)).as("what keeps io.echomq.lock from compiling "
                + "without io.echomq.queue").isEmpty();
    }

    @Test
    void theCheckFailsAndNamesTheReferenceWhenALockTypeNamesAQueueType(@TempDir Path dir) throws IOException {
        Path src = dir.resolve("src/io/echomq/lock");
        Files.createDirectories(src);
        Path bad = src.resolve("Bad.java");
        Files.writeString(bad, "package io.echomq.lock;\n\nimport io.echomq.queue.Job;\n\n"
                + "final class Bad {\n    Job job;\n}\n");
        Path out = Files.createDirectories(dir.resolve("out"));

        List<String> problems = compile(List.of(bad), thirdPartyClassPath(), out);

        assertThat(problems).anyMatch(p -> p.startsWith("Bad.java:3: ") && p.contains("io.echomq.queue"));
        assertThat(problems).contains("Bad.java:3: import io.echomq.queue.Job;");
    }

    @Test
    void theBasePackageImportsNoneOfTheOthers() throws IOException {
        List<String> imports = new ArrayList<>();
        for (Path source : sources(MAIN)) {
            if (!source.getParent().equals(MAIN.resolve("io/echomq"))) {
                continue;
            }
            List<String> lines = Files.readAllLines(source, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (BASE_REACHES_DOWN.matcher(lines.get(i)).find()) {
                    imports.add(source.getFileName() + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertThat(imports).as("the base package io.echomq is the bottom layer: internal, lock and queue may "
                + "import it, never the other way").isEmpty();
    }

    /** @return the {@code .java} files directly in each of {@link #PACKAGES} under {@code root} */
    static List<Path> sources(Path root) {
        List<Path> found = new ArrayList<>();
        for (String pkg : PACKAGES) {
            try (Stream<Path> files = Files.list(root.resolve(pkg))) {
                files.filter(p -> p.toString().endsWith(".java")).sorted().forEach(found::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return found;
    }

    /**
     * @return the test's class path without the project's own classes: no directory (this module's
     *     classes and test classes) and no jar of an EchoMQ module, so nothing of the queue package
     */
    static String thirdPartyClassPath() {
        return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> e.endsWith(".jar") && !Path.of(e).getFileName().toString().startsWith("echomq-"))
                .collect(Collectors.joining(File.pathSeparator));
    }

    /**
     * Compiles {@code sources} into {@code out}.
     *
     * @return nothing when it compiled; otherwise one line per error ({@code File.java:line: message})
     *     and one per import of {@code io.echomq.queue} in the sources
     */
    static List<String> compile(List<Path> sources, String classPath, Path out) throws IOException {
        ToolProvider javac = ToolProvider.findFirst("javac").orElseThrow(() -> new AssertionError("no javac: run on a JDK"));
        List<String> args = new ArrayList<>(List.of("-proc:none", "-implicit:none", "--release", "17", "-nowarn",
                "-encoding", "UTF-8", "-Xmaxerrs", "1000", "-classpath", classPath, "-sourcepath", "",
                "-d", out.toString()));
        sources.forEach(s -> args.add(s.toString()));
        StringWriter report = new StringWriter();
        int exit;
        try (PrintWriter w = new PrintWriter(report)) {
            exit = javac.run(w, w, args.toArray(String[]::new));
        }
        TreeSet<String> problems = new TreeSet<>();
        if (exit != 0) {
            report.toString().lines().map(ERROR::matcher).filter(Matcher::matches).forEach(m ->
                    problems.add(Path.of(m.group(1)).getFileName() + ":" + m.group(2) + ": " + m.group(3)));
            if (problems.isEmpty()) {
                problems.add("javac exited " + exit + ": " + report);
            }
        }
        for (Path source : sources) {
            List<String> lines = Files.readAllLines(source, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).startsWith("import io.echomq.queue.")
                        || lines.get(i).startsWith("import static io.echomq.queue.")) {
                    problems.add(source.getFileName() + ":" + (i + 1) + ": " + lines.get(i));
                }
            }
        }
        return new ArrayList<>(problems);
    }
}
