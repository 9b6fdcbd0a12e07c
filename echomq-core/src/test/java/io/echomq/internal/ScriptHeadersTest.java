package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Holds every Lua file to its name and its Java caller: {@code <op>-<numKeys>.lua}, a header that
 * documents exactly KEYS[1..numKeys] and every ARGV the body reads, a Returns section, and a
 * {@link Scripts} constant with the same name and key count.
 */
class ScriptHeadersTest {
    private static final Pattern FILE = Pattern.compile("([a-z][a-z-]*)-(\\d+)\\.lua");
    private static final Pattern KEYS = Pattern.compile("KEYS\\[(\\d+)]");
    private static final Pattern ARGV = Pattern.compile("ARGV\\[(\\d+)]");

    static List<Path> luaFiles() throws IOException, URISyntaxException {
        Path folder = Path.of(LuaScript.class.getResource(LuaScript.FOLDER).toURI());
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(p -> p.toString().endsWith(".lua")).sorted().collect(Collectors.toList());
        }
    }

    @ParameterizedTest
    @MethodSource("luaFiles")
    void headerMatchesFileNameAndBody(Path file) throws IOException {
        String name = file.getFileName().toString();
        Matcher m = FILE.matcher(name);
        assertThat(m.matches()).as("%s is named <op>-<numKeys>.lua", name).isTrue();
        int numKeys = Integer.parseInt(m.group(2));

        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        String header = lines.stream().takeWhile(l -> l.startsWith("--")).collect(Collectors.joining("\n"));
        String body = lines.stream().dropWhile(l -> l.startsWith("--")).collect(Collectors.joining("\n"));

        assertThat(header).as("%s header names the file", name).startsWith("-- " + name + ":");
        assertThat(indices(KEYS, header)).as("%s documents KEYS[1..%d]", name, numKeys)
                .isEqualTo(range(numKeys));
        assertThat(indices(KEYS, body)).as("%s body uses only declared KEYS", name).isSubsetOf(range(numKeys));
        assertThat(indices(ARGV, header)).as("%s documents every ARGV its body reads", name)
                .isEqualTo(indices(ARGV, body));
        assertThat(header).as("%s documents its return values", name).containsIgnoringCase("Returns");
    }

    @Test
    void everyFileHasAJavaCallerAndEveryCallerAFile() throws Exception {
        Set<String> files = luaFiles().stream().map(p -> p.getFileName().toString())
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> callers = Scripts.all().stream().map(LuaScript::fileName)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(callers).isEqualTo(files);
    }

    @Test
    void shaIsTheSha1OfTheBody() {
        for (LuaScript s : Scripts.all()) {
            assertThat(s.sha()).hasSize(40).matches("[0-9a-f]+");
        }
        assertThat(Scripts.ACQUIRE.sha()).isNotEqualTo(Scripts.RELEASE.sha());
    }

    private static Set<Integer> indices(Pattern p, String text) {
        Set<Integer> found = new TreeSet<>();
        Matcher m = p.matcher(text);
        while (m.find()) {
            found.add(Integer.parseInt(m.group(1)));
        }
        return found;
    }

    private static Set<Integer> range(int n) {
        Set<Integer> s = new TreeSet<>();
        for (int i = 1; i <= n; i++) {
            s.add(i);
        }
        return s;
    }
}
