package io.echomq.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The repository's files as the docs tests read them: the pages a user reads (README.md,
 * CHANGELOG.md, BENCHMARKS.md, docs/*.md), the main sources of every module, and the committed API
 * listings. The tests run in echomq-cli, whose working directory is one level below the root.
 */
final class RepoPages {

    private RepoPages() {
    }

    /** @return the repository's root: the directory above holding {@code .ci/run} */
    static Path root() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            if (Files.exists(d.resolve(".ci/run"))) {
                return d;
            }
        }
        throw new IllegalStateException("no repository root above " + Path.of("").toAbsolutePath());
    }

    /** @return every page a user reads, README.md first */
    static List<Path> pages() {
        Path root = root();
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md"), root.resolve("CHANGELOG.md"),
                root.resolve("BENCHMARKS.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return pages;
    }

    /** @return the text of every page, one string */
    static String allPages() {
        StringBuilder all = new StringBuilder();
        for (Path p : pages()) {
            all.append(read(p)).append('\n');
        }
        return all.toString();
    }

    /** @return every {@code .java} file under a {@code src/main/java} of the repository */
    static List<Path> mainSources() {
        try (Stream<Path> files = Files.walk(root())) {
            return files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().replace('\\', '/').contains("/src/main/java/"))
                    .filter(p -> !p.toString().replace('\\', '/').contains("/target/"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return whether a main source file declares a type of this simple name */
    static boolean typeExists(String simpleName) {
        return mainSources().stream().anyMatch(p -> p.getFileName().toString().equals(simpleName + ".java"));
    }

    /** @return the text of {@code file} */
    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
