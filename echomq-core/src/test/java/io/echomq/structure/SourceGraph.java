package io.echomq.structure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The file-level dependency graph of a set of Java sources, read from their text: a file depends
 * on another when its code names one of the other file's types. Comments, javadoc, string, text
 * block and character literals are stripped first, so a name only in documentation or in a message
 * is no use; {@code import} lines are dropped too, so an import kept only for a javadoc link is none.
 * A simple name resolves, in this order, to a type of the file itself (its nested types shadow the
 * rest), an explicit import, a top-level type of the file's own package, then a wildcard import of
 * a package of the set; a fully qualified name resolves by its longest known prefix. A statically
 * imported member resolves to its type's file, and a static import on demand counts as a use of
 * its type. A nested type counts with the file that declares it. A sealed type's {@code permits}
 * clause is no use of the types it names: it closes the set of implementations, which depend on the
 * sealed type, not the other way round (a sealed type with its implementations in other files has
 * to name them, so counting the clause would make every such family a cycle).
 *
 * <p>Files are named by their path under the source root, with {@code /}.
 */
final class SourceGraph {

    /** The package's own name in {@code package a.b;}. */
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    /** One import, static or not, single or on demand. */
    private static final Pattern IMPORT = Pattern.compile(
            "^\\s*import\\s+(static\\s+)?([\\w.]+?)(\\.\\*)?\\s*;", Pattern.MULTILINE);
    /** A type declaration's name (top-level or nested). */
    private static final Pattern DECLARATION = Pattern.compile(
            "(?<![\\w.])(?:class|interface|enum|record|@\\s*interface)\\s+([A-Za-z_$][\\w$]*)");
    /** A sealed type's {@code permits} clause, up to the body's brace. */
    private static final Pattern PERMITS = Pattern.compile("(?<![\\w$])permits\\s+[\\w$.\\s,<>]*?(?=\\{)");
    /** A name, or a dotted run of names (a qualified name or a member access). */
    private static final Pattern NAME = Pattern.compile("[A-Za-z_$][\\w$]*(?:\\s*\\.\\s*[A-Za-z_$][\\w$]*)*");

    private final Map<String, Set<String>> edges;

    private SourceGraph(Map<String, Set<String>> edges) {
        this.edges = edges;
    }

    /**
     * Reads every {@code .java} file under {@code root} but {@code module-info.java} and
     * {@code package-info.java}.
     *
     * @param root a source root such as {@code src/main/java}
     * @return the files' texts by path under root
     * @throws UncheckedIOException if a file cannot be read
     */
    static Map<String, String> read(Path root) {
        Map<String, String> sources = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String name = p.getFileName().toString();
                if (!name.equals("module-info.java") && !name.equals("package-info.java")) {
                    sources.put(root.relativize(p).toString().replace('\\', '/'),
                            Files.readString(p, StandardCharsets.UTF_8));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the sources under " + root, e);
        }
        return sources;
    }

    /**
     * Builds the graph of the given files.
     *
     * @param sources each file's text by its path under the source root ({@code a/b/C.java})
     * @return the graph; a file's edges never include itself
     */
    static SourceGraph of(Map<String, String> sources) {
        Map<String, String> stripped = new TreeMap<>();
        sources.forEach((file, text) -> stripped.put(file, strip(text)));
        // every top-level type, by qualified name: the file's own one, and any other top-level types it holds
        Map<String, String> fileOfType = new HashMap<>();
        Map<String, Set<String>> typesOfPackage = new HashMap<>();
        Map<String, String> packageOf = new HashMap<>();
        Map<String, Set<String>> declared = new HashMap<>();
        stripped.forEach((file, code) -> {
            Matcher p = PACKAGE.matcher(code);
            String pkg = p.find() ? p.group(1) : "";
            packageOf.put(file, pkg);
            String simple = file.substring(file.lastIndexOf('/') + 1, file.length() - ".java".length());
            Set<String> names = new HashSet<>();
            names.add(simple);
            for (String top : topLevelTypes(code)) {
                names.add(top);
                fileOfType.putIfAbsent(qualify(pkg, top), file);
                typesOfPackage.computeIfAbsent(pkg, k -> new HashSet<>()).add(top);
            }
            fileOfType.put(qualify(pkg, simple), file);
            typesOfPackage.computeIfAbsent(pkg, k -> new HashSet<>()).add(simple);
            Matcher d = DECLARATION.matcher(code);
            while (d.find()) {
                names.add(d.group(1));
            }
            declared.put(file, names);
        });

        Map<String, Set<String>> edges = new TreeMap<>();
        stripped.forEach((file, code) -> {
            String pkg = packageOf.get(file);
            Map<String, String> single = new HashMap<>();
            List<String> onDemand = new ArrayList<>();
            Set<String> staticOnDemand = new TreeSet<>();
            Matcher i = IMPORT.matcher(code);
            while (i.find()) {
                String target = longestType(i.group(2), fileOfType);
                if (i.group(3) != null) {
                    if (target == null && typesOfPackage.containsKey(i.group(2))) {
                        onDemand.add(i.group(2));
                    } else if (target != null && i.group(1) != null) {
                        staticOnDemand.add(target);        // its members cannot be told apart here: a use
                    }
                } else if (target != null) {
                    // a type by its simple name, or a static member by its own name
                    single.put(i.group(2).substring(i.group(2).lastIndexOf('.') + 1), target);
                }
            }
            String body = PERMITS.matcher(IMPORT.matcher(PACKAGE.matcher(code).replaceAll(" ")).replaceAll(" "))
                    .replaceAll(" ");
            Set<String> own = declared.get(file);
            Set<String> targets = new TreeSet<>(staticOnDemand);
            targets.remove(file);
            Matcher n = NAME.matcher(body);
            while (n.find()) {
                String[] parts = n.group().split("\\s*\\.\\s*");
                String first = parts[0];
                String target = null;
                if (own.contains(first)) {
                    continue;
                } else if (single.containsKey(first)) {
                    target = single.get(first);
                } else if (typesOfPackage.getOrDefault(pkg, Set.of()).contains(first)) {
                    target = fileOfType.get(qualify(pkg, first));
                } else {
                    for (String wildcard : onDemand) {
                        if (typesOfPackage.get(wildcard).contains(first)) {
                            target = fileOfType.get(qualify(wildcard, first));
                            break;
                        }
                    }
                    if (target == null && parts.length > 1) {
                        target = longestType(String.join(".", parts), fileOfType);
                    }
                }
                if (target != null && !target.equals(file)) {
                    targets.add(target);
                }
            }
            edges.put(file, targets);
        });
        return new SourceGraph(edges);
    }

    /**
     * @param file a file's path under the source root ({@code a/b/C.java})
     * @param text its source
     * @return its class's name: the package its {@code package} line declares (which a file in a role
     *     folder below its package's folder does not spell in its path) and its file name
     */
    static String className(String file, String text) {
        Matcher p = PACKAGE.matcher(text);
        String simple = file.substring(file.lastIndexOf('/') + 1, file.length() - ".java".length());
        return p.find() ? p.group(1) + "." + simple : simple;
    }

    /** @return the files {@code file} depends on */
    Set<String> dependencies(String file) {
        return edges.getOrDefault(file, Set.of());
    }

    /**
     * The strongly connected components of more than one file: each a set of files every one of
     * which reaches every other through the graph.
     *
     * @return each component's files sorted, the components sorted by their first file
     */
    List<Set<String>> cycles() {
        // Tarjan's algorithm, iterative so that a long chain of files cannot overflow the stack
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new HashSet<>();
        List<Set<String>> components = new ArrayList<>();
        int[] counter = {0};
        for (String start : edges.keySet()) {
            if (index.containsKey(start)) {
                continue;
            }
            Deque<Map.Entry<String, java.util.Iterator<String>>> work = new ArrayDeque<>();
            enter(start, index, low, stack, onStack, counter);
            work.push(Map.entry(start, edges.get(start).iterator()));
            while (!work.isEmpty()) {
                Map.Entry<String, java.util.Iterator<String>> top = work.peek();
                String v = top.getKey();
                if (top.getValue().hasNext()) {
                    String w = top.getValue().next();
                    if (!edges.containsKey(w)) {
                        continue;
                    }
                    if (!index.containsKey(w)) {
                        enter(w, index, low, stack, onStack, counter);
                        work.push(Map.entry(w, edges.get(w).iterator()));
                    } else if (onStack.contains(w)) {
                        low.put(v, Math.min(low.get(v), index.get(w)));
                    }
                    continue;
                }
                work.pop();
                if (!work.isEmpty()) {
                    String parent = work.peek().getKey();
                    low.put(parent, Math.min(low.get(parent), low.get(v)));
                }
                if (low.get(v).equals(index.get(v))) {
                    Set<String> component = new TreeSet<>();
                    String w;
                    do {
                        w = stack.pop();
                        onStack.remove(w);
                        component.add(w);
                    } while (!w.equals(v));
                    if (component.size() > 1) {
                        components.add(component);
                    }
                }
            }
        }
        components.sort((a, b) -> a.iterator().next().compareTo(b.iterator().next()));
        return components;
    }

    private static void enter(String v, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
            Set<String> onStack, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]);
        counter[0]++;
        stack.push(v);
        onStack.add(v);
    }

    /**
     * Counts the lines of code of a source: lines with something left once comments and javadoc
     * are stripped (a line inside a string or text block counts, being code).
     *
     * @param source a Java file's text
     * @return its count of non-blank lines outside comments
     */
    static int codeLines(String source) {
        int count = 0;
        for (String line : stripComments(source, false).split("\n", -1)) {
            if (!line.isBlank()) {
                count++;
            }
        }
        return count;
    }

    /** @return the source with comments and literals blanked out, line breaks kept */
    static String strip(String source) {
        return stripComments(source, true);
    }

    /**
     * Blanks out comments (and, when {@code literals}, the contents of string, text block and
     * character literals, leaving their quotes) with spaces; line breaks are kept, so a line of
     * the result is the same line of the source.
     */
    private static String stripComments(String s, boolean literals) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            if (c == '/' && i + 1 < n && s.charAt(i + 1) == '/') {
                while (i < n && s.charAt(i) != '\n') {
                    out.append(' ');
                    i++;
                }
            } else if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') {
                int end = s.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                blank(s, i, end, out);
                i = end;
            } else if (c == '"' && s.startsWith("\"\"\"", i)) {
                int end = i + 3;
                while (end < n && !s.startsWith("\"\"\"", end)) {
                    end += s.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(n, end + 3);
                literal(s, i, end, 3, literals, out);
                i = end;
            } else if (c == '"' || c == '\'') {
                int end = i + 1;
                while (end < n && s.charAt(end) != c && s.charAt(end) != '\n') {
                    end += s.charAt(end) == '\\' ? 2 : 1;
                }
                end = Math.min(n, end + 1);
                literal(s, i, end, 1, literals, out);
                i = end;
            } else {
                out.append(c);
                i++;
            }
        }
        return out.toString();
    }

    private static void literal(String s, int from, int to, int quotes, boolean blankIt, StringBuilder out) {
        if (!blankIt) {
            out.append(s, from, to);
            return;
        }
        out.append(s, from, Math.min(to, from + quotes));
        blank(s, Math.min(to, from + quotes), Math.max(from + quotes, to - quotes), out);
        if (to - quotes > from) {
            out.append(s, Math.max(from + quotes, to - quotes), to);
        }
    }

    private static void blank(String s, int from, int to, StringBuilder out) {
        for (int k = from; k < to && k < s.length(); k++) {
            out.append(s.charAt(k) == '\n' ? '\n' : ' ');
        }
    }

    /** @return the names of the types declared at depth 0 of the braces */
    private static List<String> topLevelTypes(String code) {
        List<String> names = new ArrayList<>();
        int depth = 0;
        Matcher d = DECLARATION.matcher(code);
        int pos = 0;
        while (d.find()) {
            for (int k = pos; k < d.start(); k++) {
                char c = code.charAt(k);
                depth += c == '{' ? 1 : c == '}' ? -1 : 0;
            }
            pos = d.start();
            if (depth == 0) {
                names.add(d.group(1));
            }
        }
        return names;
    }

    /** @return the file of the longest prefix of a dotted name that is a known top-level type, or null */
    private static String longestType(String dotted, Map<String, String> fileOfType) {
        String name = dotted;
        while (true) {
            String file = fileOfType.get(name);
            if (file != null) {
                return file;
            }
            int dot = name.lastIndexOf('.');
            if (dot < 0) {
                return null;
            }
            name = name.substring(0, dot);
        }
    }

    private static String qualify(String pkg, String simple) {
        return pkg.isEmpty() ? simple : pkg + "." + simple;
    }
}
