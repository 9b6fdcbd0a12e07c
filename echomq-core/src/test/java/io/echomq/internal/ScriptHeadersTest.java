package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * Holds every Lua file to its name, its parts and its Java caller:
 * <ol>
 *   <li>each script is {@code lock/} or {@code queue/<op>-<numKeys>.lua}, with a header that
 *       documents exactly KEYS[1..numKeys] and every ARGV its body reads, its own or its parts',
 *       and a Returns section; a part it inlines uses no KEYS or ARGV the header lacks;</li>
 *   <li>each script has a {@link Scripts} constant with the same side, name and key count;</li>
 *   <li>each part in {@code includes/} opens with a header naming its file and is inlined by at
 *       least one script;</li>
 *   <li>the loader inlines the parts a part includes before it, each part once per script, and
 *       refuses a part that is missing, a file that names a part twice, and a cycle of parts.</li>
 * </ol>
 */
class ScriptHeadersTest {
    private static final Pattern FILE = Pattern.compile("([a-z][a-z-]*)-(\\d+)\\.lua");
    private static final Pattern KEYS = Pattern.compile("KEYS\\[(\\d+)]");
    private static final Pattern ARGV = Pattern.compile("ARGV\\[(\\d+)]");

    static Path folder(String sub) throws URISyntaxException {
        return Path.of(LuaScript.class.getResource(LuaScript.FOLDER + sub).toURI());
    }

    /** @return every script, as {@code <side>/<file>} */
    static List<String> luaFiles() throws IOException, URISyntaxException {
        List<String> out = new ArrayList<>();
        for (String side : List.of(LuaScript.LOCK, LuaScript.QUEUE, LuaScript.CLIENT)) {
            try (Stream<Path> files = Files.list(folder(side))) {
                files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".lua")).sorted()
                        .forEach(n -> out.add(side + "/" + n));
            }
        }
        return out;
    }

    static List<String> partFiles() throws IOException, URISyntaxException {
        try (Stream<Path> files = Files.list(folder(LuaIncludes.FOLDER))) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".lua")).sorted()
                    .collect(Collectors.toList());
        }
    }

    @Test
    void theFolderHoldsOnlyTheSidesAndTheParts() throws Exception {
        try (Stream<Path> files = Files.list(folder(""))) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(LuaScript.LOCK, LuaScript.QUEUE, LuaScript.CLIENT, "includes");
        }
    }

    @ParameterizedTest
    @MethodSource("luaFiles")
    void headerMatchesFileNameAndBody(String path) throws Exception {
        String name = path.substring(path.indexOf('/') + 1);
        Matcher m = FILE.matcher(name);
        assertThat(m.matches()).as("%s is named <op>-<numKeys>.lua", path).isTrue();
        String source = Files.readString(folder("").resolve(path), StandardCharsets.UTF_8);
        LuaIncludes.Expanded expanded = LuaIncludes.expand(path, source, LuaScript::readPart);
        assertThat(problems(name, Integer.parseInt(m.group(2)), source, expanded, LuaScript::readPart)).isEmpty();
    }

    /**
     * @return what is wrong with one script: its header against its name, its own body and the
     *     text of every part it inlines (empty when nothing is)
     */
    static List<String> problems(String name, int numKeys, String source, LuaIncludes.Expanded expanded,
                                 java.util.function.Function<String, String> partReader) {
        List<String> lines = List.of(source.split("\n", -1));
        String header = lines.stream().takeWhile(l -> l.startsWith("--") && LuaIncludes.partOf(l) == null)
                .collect(Collectors.joining("\n"));
        String body = lines.stream().dropWhile(l -> l.startsWith("--") && LuaIncludes.partOf(l) == null)
                .collect(Collectors.joining("\n"));
        String parts = expanded.parts().stream().map(partReader).collect(Collectors.joining("\n"));
        List<String> problems = new ArrayList<>();
        if (!header.startsWith("-- " + name + ":")) {
            problems.add(name + ": the header does not open with '-- " + name + ":'");
        }
        if (!indices(KEYS, header).equals(range(numKeys))) {
            problems.add(name + ": the header documents KEYS " + indices(KEYS, header) + ", not 1.." + numKeys);
        }
        if (!range(numKeys).containsAll(indices(KEYS, body))) {
            problems.add(name + ": the body uses undeclared KEYS " + indices(KEYS, body));
        }
        if (!indices(ARGV, header).equals(indices(ARGV, body + "\n" + parts))) {
            problems.add(name + ": the header documents ARGV " + indices(ARGV, header) + " but the body reads "
                    + indices(ARGV, body));
        }
        for (String part : expanded.parts()) {
            String text = partReader.apply(part);
            if (!range(numKeys).containsAll(indices(KEYS, text))) {
                problems.add(name + ": the part " + part + " uses KEYS " + indices(KEYS, text)
                        + " that the header does not declare");
            }
            if (!indices(ARGV, header).containsAll(indices(ARGV, text))) {
                problems.add(name + ": the part " + part + " reads ARGV " + indices(ARGV, text)
                        + " that the header does not document");
            }
        }
        if (!header.toLowerCase().contains("returns")) {
            problems.add(name + ": the header does not document its return values");
        }
        return problems;
    }

    @Test
    void everyFileHasAJavaCallerAndEveryCallerAFile() throws Exception {
        Set<String> files = new TreeSet<>(luaFiles());
        Set<String> callers = Scripts.all().stream().map(LuaScript::path)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(callers).isEqualTo(files);
    }

    @ParameterizedTest
    @MethodSource("partFiles")
    void everyPartHasAHeaderAndIsInlinedSomewhere(String file) throws Exception {
        String part = file.substring(0, file.length() - ".lua".length());
        String text = LuaScript.readPart(part);
        assertThat(text).as("%s opens with a header naming it", file).startsWith("-- " + file + ":");
        assertThat(Scripts.all()).as("a script inlines %s", file).anyMatch(s -> s.parts().contains(part));
    }

    @Test
    void theShaIsTheSha1OfTheExpandedText() throws Exception {
        for (LuaScript s : Scripts.all()) {
            assertThat(s.sha()).hasSize(40).matches("[0-9a-f]+");
            byte[] digest = java.security.MessageDigest.getInstance("SHA-1")
                    .digest(s.body().getBytes(StandardCharsets.UTF_8));
            assertThat(s.sha()).isEqualTo(java.util.HexFormat.of().formatHex(digest));
            assertThat(s.body()).as("%s is sent expanded", s).doesNotContain("--@include");
            for (String part : s.parts()) {
                String own = LuaScript.readPart(part).lines().filter(l -> LuaIncludes.partOf(l) == null)
                        .collect(Collectors.joining("\n"));
                assertThat(s.body()).contains(own.strip());
            }
        }
        assertThat(Scripts.ACQUIRE.sha()).isNotEqualTo(Scripts.RELEASE.sha());
    }

    @Test
    void labelsNameTheOperationAndItsKeyCount() {
        assertThat(Scripts.CLAIM.label()).isEqualTo("EVALSHA claim-8");
        assertThat(Scripts.RENEW.label()).isEqualTo("EVALSHA renew-2");
        assertThat(Scripts.all()).extracting(LuaScript::label).doesNotHaveDuplicates();
    }

    // ---- the loader's refusals, on made-up scripts and parts

    private static final Map<String, String> PARTS = Map.of(
            "a", "-- a.lua: a part\nlocal function a() return 1 end",
            "b", "-- b.lua: reads an argument\nlocal b = ARGV[3]",
            "uses-a", "-- uses-a.lua: includes a\n--@include a\nlocal function usesA() return a() end",
            "uses-both", "-- uses-both.lua: includes uses-a and a\n--@include uses-a\n--@include a\n"
                    + "local function usesBoth() return usesA() + a() end",
            "loop-x", "-- loop-x.lua: one side of a cycle\n--@include loop-y\nlocal x = 1",
            "loop-y", "-- loop-y.lua: the other side\n--@include loop-z\nlocal y = 1",
            "loop-z", "-- loop-z.lua: closes the cycle\n--@include loop-x\nlocal z = 1",
            "self", "-- self.lua: includes itself\n--@include self\nlocal s = 1",
            "twice", "-- twice.lua: names a part twice\n--@include a\n--@include a\nlocal t = 1",
            "lost", "-- lost.lua: names a part that is not there\n--@include nowhere\nlocal l = 1");

    private static LuaIncludes.Expanded expand(String source) {
        return LuaIncludes.expand("made-up-1.lua", source, PARTS::get);
    }

    @Test
    void aPartIsInlinedInPlaceOfItsLine() {
        LuaIncludes.Expanded e = expand("-- made-up-1.lua: x\n--@include a\nreturn a()");
        assertThat(e.text()).isEqualTo("-- made-up-1.lua: x\n-- a.lua: a part\nlocal function a() return 1 end\nreturn a()");
        assertThat(e.parts()).containsExactly("a");
    }

    @Test
    void aMissingPartIsRefused() {
        assertThatThrownBy(() -> expand("--@include nowhere\nreturn 1"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("nowhere");
    }

    @Test
    void aPartNamedTwiceIsRefused() {
        assertThatThrownBy(() -> expand("--@include a\n--@include a\nreturn a()"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("a twice");
    }

    @Test
    void aPartBringsThePartsItIncludesBeforeItself() {
        LuaIncludes.Expanded e = expand("-- made-up-1.lua: x\n--@include uses-a\nreturn usesA()");
        assertThat(e.text()).isEqualTo("-- made-up-1.lua: x\n-- a.lua: a part\nlocal function a() return 1 end\n"
                + "-- uses-a.lua: includes a\nlocal function usesA() return a() end\nreturn usesA()");
        assertThat(e.parts()).containsExactly("a", "uses-a");
    }

    @Test
    void aPartReachedTwiceIsInlinedOnceWhereItIsFirstReached() {
        LuaIncludes.Expanded e = expand("--@include uses-both\n--@include uses-a\n--@include a\nreturn usesBoth()");
        assertThat(e.parts()).containsExactly("a", "uses-a", "uses-both");
        assertThat(e.text().split("local function a\\(", -1)).hasSize(2);
        assertThat(e.text().split("local function usesA\\(", -1)).hasSize(2);
        assertThat(e.text()).doesNotContain("--@include").endsWith("\nreturn usesBoth()");
    }

    @Test
    void everyPartStandsAfterThePartsItIncludes() {
        LuaIncludes.Expanded e = expand("--@include b\n--@include uses-both\nreturn 1");
        assertThat(e.parts()).containsExactly("b", "a", "uses-a", "uses-both");
        String t = e.text();
        assertThat(t.indexOf("local b =")).isLessThan(t.indexOf("local function a("));
        assertThat(t.indexOf("local function a(")).isLessThan(t.indexOf("local function usesA("));
        assertThat(t.indexOf("local function usesA(")).isLessThan(t.indexOf("local function usesBoth("));
    }

    @Test
    void aCycleIsRefusedNamingEveryPartInIt() {
        assertThatThrownBy(() -> expand("--@include loop-x\nreturn 1"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("made-up-1.lua")
                .hasMessageContaining("cycle")
                .hasMessageContaining("includes/loop-x.lua -> includes/loop-y.lua -> includes/loop-z.lua -> includes/loop-x.lua");
        assertThatThrownBy(() -> expand("--@include self\nreturn 1"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("includes/self.lua -> includes/self.lua");
    }

    @Test
    void aPartNamedTwiceByAPartIsRefused() {
        assertThatThrownBy(() -> expand("--@include twice\nreturn 1"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("includes/twice.lua includes a twice");
    }

    @Test
    void aMissingPartNamedByAPartIsRefusedNamingTheIncluder() {
        assertThatThrownBy(() -> expand("--@include lost\nreturn 1"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("includes/lost.lua includes nowhere")
                .hasMessageContaining("includes/nowhere.lua is not on the class path");
    }

    @Test
    void everyScriptNamesOnlyThePartsItUsesAndGetsThemAll() {
        // claim-8 uses eleven parts; it names those it calls, and its parts bring the rest
        assertThat(Scripts.CLAIM.source().lines().filter(l -> LuaIncludes.partOf(l) != null).count())
                .isLessThan(Scripts.CLAIM.parts().size());
        assertThat(Scripts.CLAIM.parts()).contains("type-guard", "job-fields", "events", "fence-check", "layout",
                "groups", "complete", "promote", "claim", "flow", "protocol", "server-time", "publish");
        for (LuaScript s : Scripts.all()) {
            assertThat(s.parts()).as("%s inlines each part once", s).doesNotHaveDuplicates();
        }
    }

    @Test
    void aPartUsingAKeyTheHeaderLacksIsAProblem() {
        Map<String, String> parts = Map.of("k", "-- k.lua: touches a key\nlocal k = KEYS[2]");
        String source = "-- made-up-1.lua: x\n-- KEYS[1] k\n-- Returns 1\n--@include k\nreturn 1";
        assertThat(problems("made-up-1.lua", 1, source, LuaIncludes.expand("made-up-1.lua", source, parts::get),
                parts::get)).anyMatch(p -> p.contains("the part k uses KEYS [2]"));
    }

    @Test
    void aPartReadingAnArgumentTheHeaderLacksIsAProblem() {
        String source = "-- made-up-1.lua: x\n-- KEYS[1] k\n-- ARGV[1] one\n-- Returns 1\n--@include b\n"
                + "return ARGV[1]";
        LuaIncludes.Expanded e = LuaIncludes.expand("made-up-1.lua", source, PARTS::get);
        assertThat(problems("made-up-1.lua", 1, source, e, PARTS::get))
                .anyMatch(p -> p.contains("the part b reads ARGV [3]"));
        String fixed = source.replace("-- ARGV[1] one\n", "-- ARGV[1] one\n-- ARGV[3] three\n");
        assertThat(problems("made-up-1.lua", 1, fixed, LuaIncludes.expand("made-up-1.lua", fixed, PARTS::get),
                PARTS::get)).isEmpty();
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
