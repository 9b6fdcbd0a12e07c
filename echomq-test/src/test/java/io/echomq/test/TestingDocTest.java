package io.echomq.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The users' tests of docs/testing.md, read out of the page, compiled with javac on this module's test class path
 * and run on the JUnit Platform exactly as they stand. The core's docs tests run programs, not test classes, and
 * have neither this module nor Spring, so the page marks them "not run" and names this test.
 */
class TestingDocTest {
    private static final Pattern BLOCK = Pattern.compile(
            "<!-- not run: [^\\n]*TestingDocTest[^\\n]*-->\\n```java\\n(.*?^public class (\\w+).*?)```",
            Pattern.DOTALL | Pattern.MULTILINE);

    @Test
    void theUsersTestsOfThePagePassAsTheyStand() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "testing.md"), StandardCharsets.UTF_8);
        Map<String, String> tests = new LinkedHashMap<>();
        Matcher m = BLOCK.matcher(page);
        while (m.find()) {
            tests.put(m.group(2), m.group(1));
        }
        assertThat(tests.keySet()).as("the test classes the page shows, marked as run by this test")
                .containsExactly("SignupTest", "WelcomeEmailTest");
        Path dir = Files.createTempDirectory("emq-testing-doc");
        PageClasses.compile(dir, tests, "-proc:none");   // the page's classes are in the default package
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, TestingDocTest.class.getClassLoader())) {
            for (String name : tests.keySet()) {
                TestExecutionSummary summary = PageClasses.run(loader, name);
                StringWriter failures = new StringWriter();
                summary.printFailuresTo(new PrintWriter(failures), 20);
                assertThat(summary.getTotalFailureCount()).as(name + " failed:\n" + failures).isZero();
                assertThat(summary.getTestsSucceededCount()).as(name + "'s tests that passed").isEqualTo(1);
            }
        }
    }
}
