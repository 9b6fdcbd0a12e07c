package io.echomq.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public API of one module, as a sorted text listing made from its compiled classes: every
 * exported type and its public and protected constructors, methods and fields, with their generic
 * signatures. A module's packages are the ones its {@code module-info} exports, or all of its
 * packages when it has none.
 *
 * <p>{@link #check(String, Class)} compares the listing with the committed {@code api/<module>.txt}
 * at the repository's root, so that a change to the public API is a decision someone reviews:
 * the test fails with the difference and the command that regenerates the listing. With the
 * system property {@value #UPDATE_PROPERTY}{@code =true} it writes the listing instead.
 */
public final class ApiListing {

    /** The system property that makes {@link #check(String, Class)} write the listing instead of comparing. */
    public static final String UPDATE_PROPERTY = "emq.api.update";

    /** The one command that regenerates every module's listing, printed when a check fails. */
    public static final String UPDATE_COMMAND = "mvn -B -o verify -pl echomq-testkit,echomq-core,echomq-cron,"
            + "echomq-jdbc,echomq-shedlock,echomq-spring-integration,echomq-spring-boot-starter,echomq-micrometer,"
            + "echomq-opentelemetry,echomq-dashboard,echomq-cli,echomq-test -am -Dtest=PublicApiTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Demq.api.update=true";

    private ApiListing() {
    }

    /**
     * Lists the public API of the classes compiled into the same directory or jar as {@code anchor}.
     *
     * @param anchor any class of the module
     * @return the listing's lines: each type's line, then its members' lines indented by two spaces;
     *     types sorted by name, members sorted within their type
     * @throws UncheckedIOException if the module's classes cannot be read
     * @throws IllegalStateException if one of its classes cannot be loaded
     */
    public static List<String> of(Class<?> anchor) {
        Path root = location(anchor);
        try {
            if (Files.isDirectory(root)) {
                return listing(root, anchor.getClassLoader());
            }
            try (FileSystem jar = FileSystems.newFileSystem(root)) {
                return listing(jar.getPath("/"), anchor.getClassLoader());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the classes at " + root, e);
        }
    }

    /**
     * Compares the module's listing with {@code api/<module>.txt} under the repository root, or
     * writes that file when the system property {@value #UPDATE_PROPERTY} is {@code true}.
     *
     * @param module the module's artifact id, which names the file
     * @param anchor any class of the module
     * @throws AssertionError if the listing differs from the file, or the file is missing; its
     *     message holds the lines added and removed and {@link #UPDATE_COMMAND}
     * @throws UncheckedIOException if the file cannot be read or written
     */
    public static void check(String module, Class<?> anchor) {
        List<String> actual = of(anchor);
        Path file = repositoryRoot().resolve("api").resolve(module + ".txt");
        try {
            if (Boolean.getBoolean(UPDATE_PROPERTY)) {
                Files.createDirectories(file.getParent());
                Files.write(file, actual);
                return;
            }
            List<String> expected = Files.exists(file) ? Files.readAllLines(file) : List.of();
            if (!expected.equals(actual)) {
                throw new AssertionError("The public API of " + module + " differs from " + "api/" + module
                        + ".txt.\nIf the change is meant (see docs/versioning.md), regenerate the listings and"
                        + " commit them:\n  " + UPDATE_COMMAND + "\n" + diff(expected, actual));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot use " + file, e);
        }
    }

    /**
     * @return the lines only in {@code expected}, each after {@code "- "}, then those only in
     *     {@code actual}, each after {@code "+ "}
     */
    static String diff(List<String> expected, List<String> actual) {
        Set<String> was = new LinkedHashSet<>(expected);
        Set<String> now = new LinkedHashSet<>(actual);
        StringBuilder out = new StringBuilder();
        for (String line : expected) {
            if (!now.contains(line)) {
                out.append("- ").append(line).append('\n');
            }
        }
        for (String line : actual) {
            if (!was.contains(line)) {
                out.append("+ ").append(line).append('\n');
            }
        }
        return out.toString();
    }

    private static List<String> listing(Path root, ClassLoader loader) throws IOException {
        Set<String> packages = exportedPackages(root);
        List<String> names;
        try (Stream<Path> files = Files.walk(root)) {
            names = files.map(p -> root.relativize(p).toString().replace('\\', '/'))
                    .filter(n -> n.endsWith(".class") && !n.endsWith("module-info.class")
                            && !n.endsWith("package-info.class"))
                    .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
                    .filter(n -> packages == null || packages.contains(packageOf(n)))
                    .sorted()
                    .collect(Collectors.toList());
        }
        List<String> lines = new ArrayList<>();
        for (String name : names) {
            Class<?> type = load(name, loader);
            if (isVisible(type)) {
                lines.add(typeLine(type));
                lines.addAll(members(type));
            }
        }
        return lines;
    }

    /** @return the packages the module-info at {@code root} exports, or null when there is none */
    private static Set<String> exportedPackages(Path root) throws IOException {
        Path info = root.resolve("module-info.class");
        if (!Files.exists(info)) {
            return null;
        }
        try (InputStream in = Files.newInputStream(info)) {
            return ModuleDescriptor.read(in).exports().stream()
                    .filter(e -> !e.isQualified())
                    .map(ModuleDescriptor.Exports::source)
                    .collect(Collectors.toSet());
        }
    }

    /** A public type whose enclosing types are public too, or protected members of public types. */
    private static boolean isVisible(Class<?> type) {
        if (type.isAnonymousClass() || type.isLocalClass() || type.isSynthetic()) {
            return false;
        }
        for (Class<?> t = type; t != null; t = t.getEnclosingClass()) {
            int m = t.getModifiers();
            boolean nested = t.getEnclosingClass() != null;
            if (!Modifier.isPublic(m) && !(nested && Modifier.isProtected(m))) {
                return false;
            }
        }
        return true;
    }

    private static String typeLine(Class<?> type) {
        // toGenericString names "sealed" and "non-sealed" on newer JDKs only (not on 17): leave them
        // out, so that the listing is the same on every JDK the build runs on
        StringBuilder line = new StringBuilder(type.toGenericString().replace("non-sealed ", "").replace("sealed ", ""));
        if (type.getGenericSuperclass() != null && type.getSuperclass() != Object.class && !type.isEnum()
                && !type.isRecord()) {
            line.append(" extends ").append(type.getGenericSuperclass().getTypeName());
        }
        if (type.getGenericInterfaces().length > 0) {
            line.append(type.isInterface() ? " extends " : " implements ");
            line.append(Stream.of(type.getGenericInterfaces()).map(java.lang.reflect.Type::getTypeName)
                    .collect(Collectors.joining(", ")));
        }
        return line.toString();
    }

    private static List<String> members(Class<?> type) {
        Set<String> lines = new TreeSet<>();
        String prefix = type.getName() + ".";
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            if (isApi(c) && !c.isSynthetic()) {
                lines.add("  " + c.toGenericString().replace(prefix, "").replace(type.getName() + "(", "<init>("));
            }
        }
        for (Method m : type.getDeclaredMethods()) {
            if (isApi(m) && !m.isSynthetic() && !m.isBridge()) {
                lines.add("  " + m.toGenericString().replace(" " + prefix + m.getName() + "(", " " + m.getName() + "(")
                        .replaceAll("\\b(synchronized|native|strictfp) ", ""));
            }
        }
        for (Field f : type.getDeclaredFields()) {
            if (isApi(f) && !f.isSynthetic()) {
                lines.add("  " + f.toGenericString().replace(prefix + f.getName(), f.getName()));
            }
        }
        return new ArrayList<>(lines);
    }

    /** Public and protected members; {@code synchronized} and {@code native} are left out, being no part of a contract. */
    private static boolean isApi(Member member) {
        int m = member.getModifiers();
        return Modifier.isPublic(m) || Modifier.isProtected(m);
    }

    private static Class<?> load(String name, ClassLoader loader) {
        try {
            return Class.forName(name, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("cannot load " + name + " to list it", e);
        }
    }

    private static String packageOf(String className) {
        int dot = className.lastIndexOf('.');
        return dot < 0 ? "" : className.substring(0, dot);
    }

    private static Path location(Class<?> anchor) {
        try {
            return Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException("no file location for " + anchor, e);
        }
    }

    /** The directory above the working directory's that holds {@code api/} or the parent pom. */
    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isDirectory(d.resolve("api")) || Files.exists(d.resolve(".ci/run"))) {
                return d;
            }
        }
        throw new IllegalStateException("no repository root (a directory with api/ or .ci/run) above " + dir);
    }
}
