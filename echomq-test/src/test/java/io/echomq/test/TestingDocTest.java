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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
        Path dir = compile(tests);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, TestingDocTest.class.getClassLoader())) {
            for (String name : tests.keySet()) {
                TestExecutionSummary summary = run(loader, name);
                StringWriter failures = new StringWriter();
                summary.printFailuresTo(new PrintWriter(failures), 20);
                assertThat(summary.getTotalFailureCount()).as(name + " failed:\n" + failures).isZero();
                assertThat(summary.getTestsSucceededCount()).as(name + "'s tests that passed").isEqualTo(1);
            }
        }
    }

    /** @return the directory of the classes javac made of the texts, in one run */
    private static Path compile(Map<String, String> classes) throws Exception {
        Path dir = Files.createTempDirectory("emq-testing-doc");
        List<String> args = new ArrayList<>(List.of("-proc:none", "-cp", System.getProperty("java.class.path"),
                "-d", dir.toString()));
        for (Map.Entry<String, String> c : classes.entrySet()) {
            Path file = dir.resolve(c.getKey() + ".java");
            Files.writeString(file, c.getValue(), StandardCharsets.UTF_8);
            args.add(file.toString());
        }
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, errors, errors, args.toArray(String[]::new));
        assertThat(rc).as("the page's tests do not compile as written:\n" + errors.toString(StandardCharsets.UTF_8))
                .isZero();
        return dir;
    }

    /** Runs one class's tests as a build would, with the class's loader as the context's. */
    private static TestExecutionSummary run(ClassLoader loader, String name) throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader saved = thread.getContextClassLoader();
        try {
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
