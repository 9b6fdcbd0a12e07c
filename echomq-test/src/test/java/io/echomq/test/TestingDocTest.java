package io.echomq.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
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
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
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
        for (Map.Entry<String, String> test : tests.entrySet()) {
            TestExecutionSummary summary = run(test.getKey(), test.getValue());
            StringWriter failures = new StringWriter();
            summary.printFailuresTo(new PrintWriter(failures), 20);
            assertThat(summary.getTotalFailureCount()).as(test.getKey() + " failed:\n" + failures).isZero();
            assertThat(summary.getTestsSucceededCount()).as(test.getKey() + "'s tests that passed").isEqualTo(1);
        }
    }

    /** Compiles one class's text and runs its tests, as a build would, with the class's loader as the context's. */
    private static TestExecutionSummary run(String name, String source) throws Exception {
        Path dir = Files.createTempDirectory("emq-testing-doc");
        Path file = dir.resolve(name + ".java");
        Files.writeString(file, source, StandardCharsets.UTF_8);
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, errors, errors, "-proc:none", "-parameters",
                "-cp", System.getProperty("java.class.path"), "-d", dir.toString(), file.toString());
        assertThat(rc).as(name + " does not compile as written:\n" + errors.toString(StandardCharsets.UTF_8)).isZero();
        Thread thread = Thread.currentThread();
        ClassLoader saved = thread.getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, TestingDocTest.class.getClassLoader())) {
            thread.setContextClassLoader(loader);
            SummaryGeneratingListener listener = new SummaryGeneratingListener();
            LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                    .selectors(selectClass(loader.loadClass(name))).build(), listener);
            return listener.getSummary();
        } finally {
            thread.setContextClassLoader(saved);
        }
    }
}
