package io.echomq.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Reads the Java snippets of README.md and {@code docs/*.md} out of the markdown, as they stand.
 *
 * <p>Duties: find every {@code ```java} fence (also indented ones, inside lists), strip only the list indentation
 * that markdown itself removes, and read the marker on the line just above the fence. A snippet is either a
 * complete program (a public class with {@code main}) that a test runs exactly as written, or marked in the page
 * with {@code <!-- not run: <reason> -->}. Nothing here edits a snippet.
 */
final class DocSnippets {
    /** The marker of a snippet that no test runs; the reason is shown to whoever edits the page. */
    static final Pattern NOT_RUN = Pattern.compile("^\\s*<!-- not run: (.+\\S)\\s*-->\\s*$");
    private static final Pattern OPEN = Pattern.compile("^(\\s*)```java\\s*$");
    private static final Pattern CLASS = Pattern.compile("(?m)^public (?:final )?class (\\w+)");

    /**
     * One snippet.
     *
     * @param file      the page, relative to the repository root
     * @param line      the line of its opening fence, from 1
     * @param code      its text, exactly as in the page apart from the list indentation
     * @param notRunWhy the reason given by a {@code not run} marker, or {@code null} if it is meant to run
     */
    record Snippet(String file, int line, String code, String notRunWhy) {
        /** @return the name of its public class, or {@code null} if it declares none (it is not a program) */
        String className() {
            Matcher m = CLASS.matcher(code);
            return m.find() ? m.group(1) : null;
        }

        @Override
        public String toString() {
            return file + ":" + line;
        }
    }

    private DocSnippets() {
    }

    /** @return the repository root, found from the module directory the tests run in */
    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("README.md"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("README.md not found above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    /** @return every Java snippet of README.md and docs/*.md, in page order */
    static List<Snippet> all() {
        Path root = root();
        List<Path> pages = new ArrayList<>();
        pages.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Snippet> out = new ArrayList<>();
        for (Path page : pages) {
            out.addAll(read(root.relativize(page).toString(), page));
        }
        return out;
    }

    private static List<Snippet> read(String name, Path page) {
        List<String> lines;
        try {
            lines = Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Snippet> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher open = OPEN.matcher(lines.get(i));
            if (!open.matches()) {
                continue;
            }
            String indent = open.group(1);
            StringBuilder code = new StringBuilder();
            int j = i + 1;
            while (j < lines.size() && !lines.get(j).strip().equals("```")) {
                String l = lines.get(j);
                code.append(l.startsWith(indent) ? l.substring(indent.length()) : l.strip()).append('\n');
                j++;
            }
            if (j == lines.size()) {
                throw new IllegalStateException(name + ":" + (i + 1) + ": a java fence that is never closed");
            }
            String why = null;
            int above = i - 1;
            while (above >= 0 && lines.get(above).isBlank()) {
                above--;
            }
            if (above >= 0) {
                Matcher m = NOT_RUN.matcher(lines.get(above));
                if (m.matches()) {
                    why = m.group(1);
                }
            }
            out.add(new Snippet(name, i + 1, code.toString(), why));
            i = j;
        }
        return out;
    }
}
