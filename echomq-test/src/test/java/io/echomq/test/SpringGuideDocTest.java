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
 * The billing service of docs/spring.md ("A billing service, end to end"), built from the page as it stands: every
 * block marked for this test becomes a file of one application (its Java classes in their package, its
 * {@code application.properties} and {@code schema.sql} at the class path's root), javac compiles the classes with
 * {@code -parameters} as Spring Boot's build plugins do, and the page's own test class runs on the JUnit Platform
 * against a real Redis. A change to the page that breaks the service, or its test, fails here.
 */
class SpringGuideDocTest {
    private static final Pattern BLOCK = Pattern.compile(
            "<!-- not run: SpringGuideDocTest [^\\n]*-->\\n```(\\w+)\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern JAVA = Pattern.compile("^package ([\\w.]+);.*?^public class (\\w+)",
            Pattern.DOTALL | Pattern.MULTILINE);
    private static final Map<String, String> RESOURCES = Map.of("properties", "application.properties",
            "sql", "schema.sql");

    @Test
    void theBillingServiceOfThePageRunsItsOwnTestGreen() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "spring.md"), StandardCharsets.UTF_8);
        Map<String, String> classes = new LinkedHashMap<>();
        Map<String, String> resources = new LinkedHashMap<>();
        Matcher m = BLOCK.matcher(page);
        while (m.find()) {
            if (m.group(1).equals("java")) {
                Matcher c = JAVA.matcher(m.group(2));
                assertThat(c.find()).as("a Java block of the guide that is no public class in a package:\n%s", m.group(2))
                        .isTrue();
                classes.put(c.group(1) + "." + c.group(2), m.group(2));
            } else {
                assertThat(RESOURCES).as("the file a %s block of the guide stands for", m.group(1)).containsKey(m.group(1));
                resources.put(RESOURCES.get(m.group(1)), m.group(2));
            }
        }
        assertThat(classes.keySet()).as("the guide's classes, marked as run by this test").containsExactly(
                "com.example.billing.BillingApplication", "com.example.billing.Orders", "com.example.billing.Invoicer",
                "com.example.billing.DailyTotals", "com.example.billing.Dunning",
                "com.example.billing.BillingServiceTest");
        assertThat(resources.keySet()).containsExactlyInAnyOrder("application.properties", "schema.sql");

        Path dir = Files.createTempDirectory("emq-spring-guide");
        for (Map.Entry<String, String> r : resources.entrySet()) {
            Files.writeString(dir.resolve(r.getKey()), r.getValue(), StandardCharsets.UTF_8);
        }
        PageClasses.compile(dir, classes, "-proc:none", "-parameters");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                SpringGuideDocTest.class.getClassLoader())) {
            TestExecutionSummary summary = PageClasses.run(loader, "com.example.billing.BillingServiceTest");
            StringWriter failures = new StringWriter();
            summary.printFailuresTo(new PrintWriter(failures), 30);
            assertThat(summary.getTotalFailureCount()).as("the guide's test failed:\n" + failures).isZero();
            assertThat(summary.getTestsSucceededCount()).as("the guide's tests that passed").isEqualTo(1);
        }
    }
}
