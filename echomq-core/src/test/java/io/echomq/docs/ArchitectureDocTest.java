package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md stays true to the tree it maps:
 *
 * <ul>
 *   <li>its files table ({@code | package | part | classes |}) puts every main source file of
 *       echomq-core in exactly one part, and names no package folder or class file that does not
 *       exist;
 *   <li>its modules table names every module of the root pom, and nothing that is not one;
 *   <li>every class the first column of a parts table ({@code | part | owns | may call |}) names
 *       is a type of echomq-core's main sources.
 * </ul>
 *
 * Each failure says which line of the page to add, change or remove.
 */
class ArchitectureDocTest {

    static final String PAGE = "docs/architecture.md";
    private static final String FILES_HEADER = "| package | part | classes |";
    private static final String PARTS_HEADER = "| part | owns | may call |";
    private static final String MODULES_HEADER = "| module | owns | may depend on |";
    private static final Pattern TICKED = Pattern.compile("`([^`]+)`");
    private static final Pattern MODULE = Pattern.compile("^\\s*<module>([^<]+)</module>", Pattern.MULTILINE);
    private static final Pattern PACKAGE = Pattern.compile("^\\s*package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern PUBLIC_TOP_LEVEL = Pattern.compile(
            "^public\\s+(?:(?:abstract|final|sealed|non-sealed|static)\\s+)*(?:class|interface|enum|record|@interface)\\s",
            Pattern.MULTILINE);
    private static final Pattern DECLARATION = Pattern.compile(
            "(?<![\\w.])(?:class|interface|enum|record|@interface)\\s+([A-Za-z_$][\\w$]*)");

    @Test
    void everyMainFileOfTheCoreIsInOnePartOfThePage() {
        Path main = DocSnippets.root().resolve("echomq-core/src/main/java");
        List<String> problems = filesProblems(read(DocSnippets.root().resolve(PAGE)), mainFiles(main),
                packageFolders(main));
        assertThat(problems).as("%s, its table '%s', against echomq-core/src/main/java", PAGE, FILES_HEADER)
                .isEmpty();
    }

    @Test
    void aRoleFolderHoldsOnlyPackagePrivatePartsOfItsPackage() {
        Path main = DocSnippets.root().resolve("echomq-core/src/main/java");
        Map<String, String> texts = new TreeMap<>();
        mainFiles(main).forEach((name, file) -> texts.put(file.toString().replace('\\', '/'), read(main.resolve(file))));
        assertThat(texts.keySet()).as("role folders under io/echomq/queue").anyMatch(f -> f.startsWith("io/echomq/queue/worker/"));
        assertThat(roleFolderProblems(texts)).isEmpty();
    }

    @Test
    void aPublicTypeOrAForeignPackageInARoleFolderFails() {
        Map<String, String> texts = new TreeMap<>();
        texts.put("a/b/Api.java", "package a.b;\npublic final class Api {}\n");
        texts.put("a/b/role/Part.java", "package a.b;\nfinal class Part {}\n");
        texts.put("a/b/role/Leak.java", "package a.b;\n/** doc */\npublic final class Leak {}\n");
        texts.put("a/b/role/Stray.java", "package x.y;\nclass Stray {}\n");
        assertThat(roleFolderProblems(texts)).containsExactly(
                "a/b/role/Leak.java is public in a role folder: public types stay in their package's folder a/b/",
                "a/b/role/Stray.java declares package x.y, which is not its folder's package or one above it");
    }

    /**
     * @param texts each main file's text by its path under the source root
     * @return one line per file that is in a role folder (a folder below its package's own) and is
     *     public, or whose package is not that of its folder or of a folder above it
     */
    static List<String> roleFolderProblems(Map<String, String> texts) {
        List<String> problems = new ArrayList<>();
        texts.forEach((file, text) -> {
            Matcher p = PACKAGE.matcher(text);
            String pkgFolder = (p.find() ? p.group(1) : "").replace('.', '/') + "/";
            String folder = file.substring(0, file.lastIndexOf('/') + 1);
            if (!folder.startsWith(pkgFolder)) {
                problems.add(file + " declares package " + pkgFolder.substring(0, pkgFolder.length() - 1).replace('/', '.')
                        + ", which is not its folder's package or one above it");
            } else if (!folder.equals(pkgFolder) && PUBLIC_TOP_LEVEL.matcher(text).find()) {
                problems.add(file + " is public in a role folder: public types stay in their package's folder "
                        + pkgFolder);
            }
        });
        return problems;
    }

    @Test
    void theModulesTableNamesEveryModuleAndNoOther() {
        Path root = DocSnippets.root();
        Set<String> modules = new TreeSet<>();
        Matcher m = MODULE.matcher(read(root.resolve("pom.xml")));
        while (m.find()) {
            modules.add(m.group(1).trim());
        }
        assertThat(modules).as("the root pom's modules").contains("echomq-core", "echomq-cli");
        assertThat(modulesProblems(read(root.resolve(PAGE)), modules,
                module -> Files.isRegularFile(root.resolve(module).resolve("pom.xml"))))
                .as("%s, its table '%s'", PAGE, MODULES_HEADER).isEmpty();
    }

    @Test
    void everyClassAPartsTableNamesIsATypeOfTheCore() {
        Path main = DocSnippets.root().resolve("echomq-core/src/main/java");
        Set<String> types = new TreeSet<>();
        for (Path file : mainFiles(main).values()) {
            Matcher d = DECLARATION.matcher(read(main.resolve(file)));
            while (d.find()) {
                types.add(d.group(1));
            }
        }
        String page = read(DocSnippets.root().resolve(PAGE));
        assertThat(rows(page, PARTS_HEADER)).as("rows of the parts tables '%s' in %s", PARTS_HEADER, PAGE)
                .hasSizeGreaterThan(50);
        assertThat(partsProblems(page, types)).as("%s, its tables '%s'", PAGE, PARTS_HEADER).isEmpty();
    }

    // the checks fail on planted violations

    @Test
    void aFileInNoPartAMissingClassAMissingFolderAndAFileInTwoPartsFail() {
        String page = "# A\n\n" + FILES_HEADER + "\n|---|---|---|\n"
                + "| `p` | the facade | `Facade`, `Gone` |\n"
                + "| `p` | a part | `Part`, `Facade` |\n"
                + "| `q` | the missing package | `Anything` |\n\n"
                + "After the table, `Elsewhere` is not a row.\n";
        Map<String, Path> files = new LinkedHashMap<>();
        files.put("p.Facade", Path.of("p/Facade.java"));
        files.put("p.Part", Path.of("p/Part.java"));
        files.put("p.Forgotten", Path.of("p/Forgotten.java"));
        assertThat(filesProblems(page, files, Set.of("p"))).containsExactly(
                "row 'the facade' names p.Gone, which has no file: remove it from the row (or fix its name)",
                "p.Facade is in two rows ('the facade', 'a part'): leave it in the one part it belongs to",
                "row 'the missing package' names package q, which has no folder under src/main/java: remove the row",
                "p.Forgotten (p/Forgotten.java) is in no row: add `Forgotten` to the classes of its part's row in package "
                        + "`p`, or a new row");
        assertThat(filesProblems(page.replace("| `p` | a part | `Part`, `Facade` |", "| `p` | a part | `Part`, "
                + "`Forgotten` |").replace(", `Gone`", "").replace("| `q` | the missing package | `Anything` |\n", ""),
                files, Set.of("p"))).isEmpty();
    }

    @Test
    void aRowNamesTheRoleFolderItsFilesAreIn() {
        String page = "# A\n\n" + FILES_HEADER + "\n|---|---|---|\n"
                + "| `p` | the facade | `Facade` |\n"
                + "| `p` `role/` | the role's parts | `Part`, `Misplaced` |\n";
        Map<String, Path> files = new LinkedHashMap<>();
        files.put("p.Facade", Path.of("p/Facade.java"));
        files.put("p.Part", Path.of("p/role/Part.java"));
        files.put("p.Misplaced", Path.of("p/Misplaced.java"));
        assertThat(filesProblems(page, files, Set.of("p"))).containsExactly(
                "row 'the role's parts' puts p.Misplaced in p/role/Misplaced.java, but its file is p/Misplaced.java: "
                        + "move the file or fix the row's folder");
    }

    @Test
    void aPageWithoutTheFilesTableFails() {
        assertThat(filesProblems("# A\n\nno table\n", Map.of("p.A", Path.of("p/A.java")), Set.of("p")))
                .containsExactly("no table '" + FILES_HEADER + "' found: add it");
    }

    @Test
    void aModuleWithoutARowAndARowWithoutAModuleFail() {
        String page = MODULES_HEADER + "\n|---|---|---|\n| `core` | it | nothing |\n| `gone` | it | nothing |\n";
        assertThat(modulesProblems(page, Set.of("core", "new"), Set.of("core", "new")::contains)).containsExactly(
                "module gone has no gone/pom.xml: remove its row",
                "module new (root pom) has no row: add `new`, what it owns and what it may depend on");
        assertThat(modulesProblems(page, Set.of("core", "gone"), Set.of("core", "gone")::contains)).isEmpty();
    }

    @Test
    void aPartsRowNamingNoTypeFails() {
        String page = PARTS_HEADER + "\n|---|---|---|\n| **`Facade`** | it | `Gone` |\n"
                + "| `internal.Engine`, `Renamed` | them | nothing |\n";
        assertThat(partsProblems(page, Set.of("Facade", "Engine"))).containsExactly(
                "the parts row of `Renamed` names no type of echomq-core: rename or remove it");
    }

    /**
     * @param page    the page's text
     * @param modules the root pom's modules
     * @param exists  whether a module named in the table has its folder and pom
     * @return one line per row naming no module, and per module with no row
     */
    static List<String> modulesProblems(String page, Set<String> modules, Predicate<String> exists) {
        List<String> problems = new ArrayList<>();
        Set<String> named = new TreeSet<>();
        for (List<String> row : rows(page, MODULES_HEADER)) {
            String module = ticked(row.get(0)).stream().findFirst().orElse(row.get(0));
            named.add(module);
            if (!exists.test(module)) {
                problems.add("module " + module + " has no " + module + "/pom.xml: remove its row");
            }
        }
        new TreeSet<>(modules).stream().filter(mod -> !named.contains(mod))
                .forEach(mod -> problems.add("module " + mod + " (root pom) has no row: add `" + mod
                        + "`, what it owns and what it may depend on"));
        return problems;
    }

    /**
     * @param page  the page's text
     * @param types the simple names of every type (top-level or nested) of the core's main sources
     * @return one line per class the first column of a parts table names that is no such type
     */
    static List<String> partsProblems(String page, Set<String> types) {
        List<String> problems = new ArrayList<>();
        for (List<String> row : rows(page, PARTS_HEADER)) {
            for (String name : ticked(row.get(0))) {
                if (!types.contains(name.substring(name.lastIndexOf('.') + 1))) {
                    problems.add("the parts row of `" + name + "` names no type of echomq-core: rename or remove it");
                }
            }
        }
        return problems;
    }

    /**
     * @param page     the page's text
     * @param files    every main file, by its class name ({@code io.echomq.queue.Queue})
     * @param packages every package that has a folder
     * @return one line per problem, each saying what to add or remove
     */
    static List<String> filesProblems(String page, Map<String, Path> files, Set<String> packages) {
        List<List<String>> rows = rows(page, FILES_HEADER);
        if (rows.isEmpty()) {
            return List.of("no table '" + FILES_HEADER + "' found: add it");
        }
        List<String> problems = new ArrayList<>();
        Map<String, List<String>> partsOf = new LinkedHashMap<>();
        List<String> missingPackages = new ArrayList<>();
        for (List<String> row : rows) {
            List<String> place = ticked(row.get(0));
            String pkg = place.stream().findFirst().orElse(row.get(0));
            // an optional second name, `folder/`, is the role folder below the package's folder
            String folder = place.size() > 1 && place.get(1).endsWith("/") ? place.get(1) : "";
            String part = row.get(1);
            if (!packages.contains(pkg)) {
                missingPackages.add("row '" + part + "' names package " + pkg
                        + ", which has no folder under src/main/java: remove the row");
                continue;
            }
            for (String simple : ticked(row.get(2))) {
                String name = pkg + "." + simple;
                partsOf.computeIfAbsent(name, k -> new ArrayList<>()).add(part);
                if (!files.containsKey(name)) {
                    problems.add("row '" + part + "' names " + name
                            + ", which has no file: remove it from the row (or fix its name)");
                } else {
                    String expected = pkg.replace('.', '/') + "/" + folder + simple + ".java";
                    String actual = files.get(name).toString().replace('\\', '/');
                    if (!actual.equals(expected)) {
                        problems.add("row '" + part + "' puts " + name + " in " + expected + ", but its file is "
                                + actual + ": move the file or fix the row's folder");
                    }
                }
            }
        }
        partsOf.forEach((name, parts) -> {
            if (parts.size() > 1) {
                problems.add(name + " is in two rows ('" + String.join("', '", parts)
                        + "'): leave it in the one part it belongs to");
            }
        });
        problems.addAll(missingPackages);
        files.forEach((name, file) -> {
            if (!partsOf.containsKey(name)) {
                int dot = name.lastIndexOf('.');
                problems.add(name + " (" + file.toString().replace('\\', '/') + ") is in no row: add `"
                        + name.substring(dot + 1) + "` to the classes of its part's row in package `"
                        + (dot < 0 ? "" : name.substring(0, dot)) + "`, or a new row");
            }
        });
        return problems;
    }

    /** @return the cells of every row of each table whose header line is {@code header}, trimmed */
    static List<List<String>> rows(String page, String header) {
        List<List<String>> rows = new ArrayList<>();
        String[] lines = page.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (!lines[i].trim().equals(header)) {
                continue;
            }
            for (int j = i + 2; j < lines.length && lines[j].trim().startsWith("|"); j++) {
                String line = lines[j].trim();
                List<String> cells = new ArrayList<>();
                for (String cell : line.substring(1, line.endsWith("|") ? line.length() - 1 : line.length())
                        .split("\\|", -1)) {
                    cells.add(cell.trim());
                }
                rows.add(cells);
            }
        }
        return rows;
    }

    private static List<String> ticked(String cell) {
        List<String> names = new ArrayList<>();
        Matcher m = TICKED.matcher(cell);
        while (m.find()) {
            names.add(m.group(1).trim());
        }
        return names;
    }

    /** @return every {@code .java} file under {@code main} but package-info and module-info, by class name */
    /**
     * @return every main file but package-info and module-info, by its class's name: the package its
     *     {@code package} line declares, and its file name (a part in a role folder below its package's
     *     folder is named by its package, not its folder)
     */
    static Map<String, Path> mainFiles(Path main) {
        Map<String, Path> files = new java.util.TreeMap<>();
        try (Stream<Path> walk = Files.walk(main)) {
            walk.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !p.getFileName().toString().equals("package-info.java")
                            && !p.getFileName().toString().equals("module-info.java"))
                    .forEach(p -> {
                        String simple = p.getFileName().toString();
                        Matcher pkg = PACKAGE.matcher(read(p));
                        String name = simple.substring(0, simple.length() - ".java".length());
                        files.put(pkg.find() ? pkg.group(1) + "." + name : name, main.relativize(p));
                    });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** @return every package of {@code main} that holds a file, dotted */
    private static Set<String> packageFolders(Path main) {
        Set<String> packages = new TreeSet<>();
        mainFiles(main).keySet().forEach(n -> packages.add(n.substring(0, Math.max(0, n.lastIndexOf('.')))));
        return packages;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
