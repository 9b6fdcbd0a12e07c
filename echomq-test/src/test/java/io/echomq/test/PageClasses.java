package io.echomq.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.ToolProvider;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * What the docs tests of this module do with the Java a page shows: compile it with javac on this module's test
 * class path, and run a compiled test class on the JUnit Platform as a build would.
 */
final class PageClasses {
    private PageClasses() {
    }

    /**
     * Compiles the classes into {@code out}, each from a file in its package's folder, in one javac run, and fails
     * the calling test with javac's messages when they do not compile as written.
     *
     * @param classes each class's binary name and its source
     * @param options javac options beyond the class path and the output folder
     */
    static void compile(Path out, Map<String, String> classes, String... options) throws Exception {
        Path sources = Files.createTempDirectory("emq-page-src");
        List<String> args = new ArrayList<>(List.of(options));
        args.addAll(List.of("-cp", System.getProperty("java.class.path"), "-d", out.toString()));
        for (Map.Entry<String, String> c : classes.entrySet()) {
            Path file = sources.resolve(c.getKey().replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, c.getValue(), StandardCharsets.UTF_8);
            args.add(file.toString());
        }
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, errors, errors, args.toArray(String[]::new));
        assertThat(rc).as("the page's classes do not compile as written:\n" + errors.toString(StandardCharsets.UTF_8))
                .isZero();
    }

    /** Runs one class's tests as a build would, with {@code loader} as the thread's context loader meanwhile. */
    static TestExecutionSummary run(ClassLoader loader, String name) throws Exception {
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
