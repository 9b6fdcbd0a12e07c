package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code docs/protocol.md} true to the scripts, the way {@link ScriptHeadersTest} keeps
 * the headers true to the bodies. It reads the page's tables and compares them:
 * <ol>
 *   <li>every reply-layout table ({@code | script | KEYS | ARGV | reply |}): each script's KEYS
 *       and ARGV names, in order, against its header's {@code KEYS[i] <name>} and
 *       {@code ARGV[i] <name>} lines, a trailing {@code …} name for each variable part; every
 *       quoted reply against the header's text; and the tables together name every script of
 *       {@link Scripts};</li>
 *   <li>every code table ({@code | code | name | answered by | meaning |}): each code and name
 *       against the header of each script it names, and against the Java code that decodes it;
 *       and each header's own named codes against the table, so that a code added to a script
 *       must be added to the page;</li>
 *   <li>the order of the fence checks the page states, against {@code includes/fence-check.lua}
 *       and {@code includes/complete.lua};</li>
 *   <li>every script or part file the page names exists.</li>
 * </ol>
 */
class ProtocolPageTest {
    private static final Path PAGE = Path.of("..", "docs", "protocol.md");
    private static final Pattern TICKED = Pattern.compile("`([^`]+)`");
    private static final Pattern KEY_LINE = Pattern.compile("(?m)^-- KEYS\\[(\\d+)]\\s+(\\S+)");
    private static final Pattern ARGV_LINE = Pattern.compile("(?m)^-- ARGV\\[(\\d+)]\\s+(\\S+)");
    private static final Pattern ARGV_VARIABLE = Pattern.compile("(?m)^-- ARGV\\[\\d+\\s*(\\.\\.|\\+)");
    /** A named code in a header: "-1  SUPERSEDED", "{0, 0}  NOT_OWNER", "1 COMPLETED · …". */
    private static final Pattern NAMED_CODE = Pattern.compile("(?<![\\d\\[-])(-?\\d)\\b[^\\n]{0,10}?\\s([A-Z][A-Z_]{2,})\\b");

    private static String page;

    @BeforeAll
    static void read() throws Exception {
        page = Files.readString(PAGE, StandardCharsets.UTF_8);
    }

    /** One table of the page: its header cells and its rows, cells trimmed. */
    record Table(List<String> header, List<List<String>> rows) {
    }

    /** @return every markdown table of {@code text} whose header row is exactly {@code header} */
    static List<Table> tables(String text, List<String> header) {
        List<Table> out = new ArrayList<>();
        String[] lines = text.split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].startsWith("|") && cells(lines[i]).equals(header) && lines[i + 1].startsWith("|---")) {
                List<List<String>> rows = new ArrayList<>();
                for (int j = i + 2; j < lines.length && lines[j].startsWith("|"); j++) {
                    rows.add(cells(lines[j]));
                }
                out.add(new Table(header, rows));
            }
        }
        return out;
    }

    private static List<String> cells(String line) {
        String inner = line.strip();
        inner = inner.substring(1, inner.endsWith("|") ? inner.length() - 1 : inner.length());
        List<String> out = new ArrayList<>();
        for (String c : inner.split("\\|", -1)) {
            out.add(c.strip());
        }
        return out;
    }

    private static List<String> ticked(String cell) {
        List<String> out = new ArrayList<>();
        Matcher m = TICKED.matcher(cell);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** @return the script of {@code path} ({@code queue/claim-8.lua}) */
    private static LuaScript script(String path) {
        return Scripts.all().stream().filter(s -> s.path().equals(path)).findFirst()
                .orElseThrow(() -> new AssertionError("docs/protocol.md names " + path + ", which no Scripts constant loads"));
    }

    /** @return the header of a script: its leading comment lines */
    static String header(LuaScript s) {
        return s.source().lines().takeWhile(l -> l.startsWith("--") && LuaIncludes.partOf(l) == null)
                .collect(Collectors.joining("\n"));
    }

    /** @return {@code text} with comment marks gone and each run of blanks one space */
    static String flat(String text) {
        return text.lines().map(l -> l.replaceFirst("^--", "")).collect(Collectors.joining(" "))
                .replaceAll("\\s+", " ");
    }

    // ------------------------------------------------------------------ reply layouts

    static List<String> layoutProblems(String text) {
        List<String> problems = new ArrayList<>();
        Set<String> named = new TreeSet<>();
        for (Table t : tables(text, List.of("script", "KEYS", "ARGV", "reply"))) {
            for (List<String> row : t.rows()) {
                String path = ticked(row.get(0)).get(0);
                named.add(path);
                LuaScript s = script(path);
                String header = header(s);
                List<String> keys = names(KEY_LINE, header);
                if (!ticked(row.get(1)).equals(keys)) {
                    problems.add(path + ": the page lists KEYS " + ticked(row.get(1)) + ", the header " + keys);
                }
                List<String> argv = ticked(row.get(2));
                List<String> fixed = argv.stream().filter(a -> !a.endsWith("…")).collect(Collectors.toList());
                long variable = argv.size() - fixed.size();
                if (!fixed.equals(names(ARGV_LINE, header))) {
                    problems.add(path + ": the page lists ARGV " + fixed + ", the header " + names(ARGV_LINE, header));
                }
                long headerVariable = ARGV_VARIABLE.matcher(header).results().count();
                if (variable != headerVariable) {
                    problems.add(path + ": the page lists " + variable + " variable ARGV parts, the header "
                            + headerVariable);
                }
                for (String quoted : ticked(row.get(3))) {
                    if (!flat(header).contains(flat(quoted))) {
                        problems.add(path + ": the reply '" + quoted + "' is not in the header");
                    }
                }
            }
        }
        Set<String> all = Scripts.all().stream().map(LuaScript::path).collect(Collectors.toCollection(TreeSet::new));
        if (!named.equals(all)) {
            Set<String> missing = new TreeSet<>(all);
            missing.removeAll(named);
            problems.add("the reply layouts do not name " + missing);
        }
        return problems;
    }

    /** @return the names of the header lines {@code KEYS[i] name} (or ARGV), ordered by i, with no gap */
    private static List<String> names(Pattern line, String header) {
        Map<Integer, String> byIndex = new java.util.TreeMap<>();
        Matcher m = line.matcher(header);
        while (m.find()) {
            byIndex.put(Integer.parseInt(m.group(1)), m.group(2));
        }
        return new ArrayList<>(byIndex.values());
    }

    @Test
    void everyReplyLayoutMatchesItsScript() {
        assertThat(layoutProblems(page)).isEmpty();
    }

    @Test
    void aLayoutThatDriftedFromItsScriptIsCaught() {
        String drifted = page.replace("| `queue/fail-4.lua` | `active` `delayed` `dead` `stats` |",
                "| `queue/fail-4.lua` | `active` `dead` `delayed` `stats` |")
                .replace("`{promoted, next_due_ms}`", "`{promoted, due_at}`")
                .replace("`prefix` `lease` `pairs…`", "`prefix` `lease`");
        assertThat(drifted).isNotEqualTo(page);
        assertThat(layoutProblems(drifted)).anyMatch(p -> p.startsWith("queue/fail-4.lua: the page lists KEYS"))
                .anyMatch(p -> p.contains("'{promoted, due_at}'"))
                .anyMatch(p -> p.startsWith("queue/extend-1.lua: the page lists 0 variable"));
    }

    // ------------------------------------------------------------------ code tables

    /** The Java decoders of the codes: a code → the name the Java side gives it, per script. */
    private static String javaName(String script, long code) throws Exception {
        switch (script) {
            case "lock/release-3.lua":
                return decode("io.echomq.lock.ReleaseOutcome", code);
            case "lock/renew-2.lua":
                return decode("io.echomq.lock.RenewOutcome", code);
            default:
                break;
        }
        if (script.startsWith("queue/") && code < 0) {
            if (code == notAHash()) {
                return "NOT_A_HASH";
            }
            return decode("io.echomq.queue.LeaseLossReason", code);
        }
        return null;   // decoded by the caller in place (a grant, a write, a positive queue answer)
    }

    private static String decode(String enumClass, long code) throws Exception {
        Method ofCode = Class.forName(enumClass).getDeclaredMethod("ofCode", long.class);
        ofCode.setAccessible(true);
        return ((Enum<?>) ofCode.invoke(null, code)).name();
    }

    private static long notAHash() throws Exception {
        Field f = Class.forName("io.echomq.queue.AttemptCalls").getDeclaredField("NOT_A_HASH_CODE");
        f.setAccessible(true);
        return f.getLong(null);
    }

    static List<String> codeProblems(String text) throws Exception {
        List<String> problems = new ArrayList<>();
        List<Table> tables = tables(text, List.of("code", "name", "answered by", "meaning"));
        if (tables.size() != 2) {
            problems.add("expected two code tables (lock, queue), found " + tables.size());
        }
        Map<String, Set<String>> listed = new LinkedHashMap<>();   // script -> "code NAME" the page gives it
        for (Table t : tables) {
            for (List<String> row : t.rows()) {
                String code = ticked(row.get(0)).get(0);
                String name = row.get(1);
                for (String path : ticked(row.get(2))) {
                    listed.computeIfAbsent(path, p -> new LinkedHashSet<>()).add(code + " " + name);
                    Pattern p = Pattern.compile("(?<![\\d\\[-])" + Pattern.quote(code) + "\\b[^\\n]{0,10}?\\s"
                            + Pattern.quote(name) + "\\b");
                    if (returnsLines(script(path)).stream().noneMatch(l -> p.matcher(l).find())) {
                        problems.add(path + ": the header does not answer " + code + " " + name);
                    }
                    String java = javaName(path, Long.parseLong(code));
                    if (java != null && !java.equals(name)) {
                        problems.add(path + ": the Java client decodes " + code + " as " + java + ", the page says "
                                + name);
                    }
                }
                if (path0(row).startsWith("queue/") && Long.parseLong(code) > 0 && !isSettleOutcome(name) && !ANSWERED_TRUE.contains(name)) {
                    problems.add("queue code " + code + " " + name + " is no SettleOutcome, nor a call answered true");
                }
            }
        }
        for (Map.Entry<String, Set<String>> e : listed.entrySet()) {
            for (String l : returnsLines(script(e.getKey()))) {
                Matcher m = NAMED_CODE.matcher(l);
                while (m.find()) {
                    String found = m.group(1) + " " + m.group(2);
                    if (!e.getValue().contains(found)) {
                        problems.add(e.getKey() + ": the header answers " + found
                                + ", which the code tables do not list for it");
                    }
                }
            }
        }
        return problems;
    }

    /** @return the lines of a script's header from its "Returns" on, comment marks gone, blanks single */
    static List<String> returnsLines(LuaScript s) {
        List<String> lines = header(s).lines().map(l -> l.replaceFirst("^--", "").replaceAll("\\s+", " ").strip())
                .collect(Collectors.toList());
        int from = 0;
        while (from < lines.size() && !lines.get(from).contains("Returns")) {
            from++;
        }
        return lines.subList(from, lines.size());
    }

    private static String path0(List<String> row) {
        List<String> t = ticked(row.get(2));
        return t.isEmpty() ? "" : t.get(0);
    }

    /** The codes of the calls that keep an attempt going: {@code Job.extend} and {@code Job.progress} answer them {@code true}. */
    private static final Set<String> ANSWERED_TRUE = Set.of("EXTENDED", "RECORDED");

    private static boolean isSettleOutcome(String name) throws Exception {
        for (Object c : Class.forName("io.echomq.queue.SettleOutcome").getEnumConstants()) {
            if (((Enum<?>) c).name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void everyCodeTableMatchesTheScriptsAndTheirDecoders() throws Exception {
        assertThat(codeProblems(page)).isEmpty();
    }

    @Test
    void aCodeTableThatDriftedIsCaught() throws Exception {
        String drifted = page.replace("| `-3` | NOT_ACTIVE |", "| `-3` | NOT_LEASED |")
                .replace("| `0` | NOT_OWNER |", "| `0` | EXPIRED |");
        assertThat(drifted).isNotEqualTo(page);
        assertThat(codeProblems(drifted))
                .anyMatch(p -> p.contains("does not answer -3 NOT_LEASED"))
                .anyMatch(p -> p.contains("the header answers -3 NOT_ACTIVE"))
                .anyMatch(p -> p.contains("decodes 0 as NOT_OWNER"));
    }

    // ------------------------------------------------------------------ the order of the fence checks

    @Test
    void theStatedOrderOfChecksIsTheOrderOfTheParts() {
        Matcher line = Pattern.compile("(?m)^\\*\\*Order of checks\\*\\*: (.*)$").matcher(page);
        assertThat(line.find()).as("docs/protocol.md states the order of checks").isTrue();
        List<String> stated = ticked(line.group(1));
        assertThat(stated.get(0)).as("-5 is checked first").isEqualTo("-5");

        String fence = LuaScript.readPart("fence-check");
        String body = fence.lines().filter(l -> !l.startsWith("--")).collect(Collectors.joining("\n"));
        List<String> inParts = Pattern.compile("return (-\\d)").matcher(body).results().map(r -> r.group(1))
                .collect(Collectors.toList());
        assertThat(stated.subList(1, stated.size())).as("the fence check's order").isEqualTo(inParts);

        String complete = LuaScript.readPart("complete");
        assertThat(complete.indexOf("code = -5")).as("complete answers -5 before the fence check")
                .isPositive().isLessThan(complete.indexOf("fenceCheck(h"));
    }

    // ------------------------------------------------------------------ files named

    @Test
    void everyFileThePageNamesExists() {
        Matcher m = Pattern.compile("`((?:lock|queue|includes)/[a-z-]+(?:-\\d+)?\\.lua)`").matcher(page);
        int seen = 0;
        while (m.find()) {
            seen++;
            String path = m.group(1);
            assertThat(LuaScript.class.getResource(LuaScript.FOLDER + path)).as("%s exists", path).isNotNull();
        }
        assertThat(seen).isGreaterThan(20);
        for (String part : List.of("server-time", "type-guard", "fence-check", "job-fields", "complete", "promote",
                "claim")) {
            assertThat(page).as("the page names the part %s", part).contains("`" + part + "`");
            assertThat(LuaScript.readPart(part)).isNotNull();
        }
    }

    /**
     * The protocol number the page states is the one the scripts answer in their refusals, the page
     * has a Versions section, and its protocol mark section names every script that reads the
     * queue's protocol mark.
     */
    @Test
    void theVersionsSectionNamesTheProtocolTheScriptsSpeakAndEveryScriptThatChecksIt() throws Exception {
        Matcher stated = Pattern.compile("This page is \\*\\*protocol (\\d+)\\*\\*").matcher(page);
        assertThat(stated.find()).as("the page states its protocol").isTrue();
        String speaks = "this client speaks protocol " + stated.group(1) + ";";
        assertThat(LuaScript.readPart("protocol")).contains(speaks);
        assertThat(LuaScript.readPart("fence")).contains(speaks);
        assertThat(page).as("the page has a Versions section").contains("\n## Versions\n");
        int at = page.indexOf("\n### The protocol mark\n");
        assertThat(at).as("the page has a protocol mark section").isPositive();
        String mark = page.substring(at, page.indexOf("\n### ", at + 1));
        int checking = 0;
        for (String path : ScriptHeadersTest.luaFiles()) {
            String source = Files.readString(ScriptHeadersTest.folder("").resolve(path), StandardCharsets.UTF_8);
            if (LuaIncludes.expand(path, source, LuaScript::readPart).parts().contains("protocol")) {
                checking++;
                String op = path.substring(path.indexOf('/') + 1, path.length() - ".lua".length());
                assertThat(mark).as("the protocol mark section names %s, which reads the mark", op)
                        .contains("`" + op + "`");
            }
        }
        assertThat(checking).isGreaterThan(0);
    }
}
