package io.echomq.docs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.spi.ToolProvider;

/**
 * Compiles one snippet exactly as it stands and runs its {@code main}, as {@code java Program.java <args>} would.
 *
 * <p>Duties: compile the text with {@code javac} on the test class path (so a checked exception the snippet does
 * not declare or catch fails the compile, as it would for a reader), load it in a class loader of its own, run
 * {@code main} on its own thread, and keep what it prints on {@code System.out}. One program runs at a time: the
 * standard output is swapped for the length of the run.
 */
final class ProgramRunner {
    private ProgramRunner() {
    }

    /** A program started by {@link #start}. */
    static final class Run {
        private final Thread thread;
        private final ByteArrayOutputStream out;
        private final PrintStream saved;
        private volatile Throwable failure;

        private Run(Thread thread, ByteArrayOutputStream out, PrintStream saved) {
            this.thread = thread;
            this.out = out;
            this.saved = saved;
        }

        /** @return what it printed so far */
        String output() {
            synchronized (out) {
                return out.toString(StandardCharsets.UTF_8);
            }
        }

        /**
         * Waits for {@code main} to return.
         *
         * @param timeout the longest wait
         * @return everything it printed
         * @throws AssertionError if it threw, or did not return in time (it is then interrupted)
         * @throws InterruptedException if interrupted while waiting
         */
        String await(Duration timeout) throws InterruptedException {
            try {
                thread.join(timeout.toMillis());
                if (thread.isAlive()) {
                    thread.interrupt();
                    thread.join(5_000);
                    throw new AssertionError("main did not return within " + timeout + "; it printed:\n" + output());
                }
                if (failure != null) {
                    throw new AssertionError("main threw " + failure + "; it printed:\n" + output(), failure);
                }
                return output();
            } finally {
                System.setOut(saved);
            }
        }
    }

    /**
     * Compiles the snippet and starts its {@code main}; call {@link Run#await} to wait for it.
     *
     * @param snippet the snippet, a public class with {@code public static void main(String[])}
     * @param args    the program arguments
     * @return the running program
     */
    static Run start(DocSnippets.Snippet snippet, String... args) {
        Method main = compile(snippet);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        PrintStream tee = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (out) {
                    out.write(b);
                }
                saved.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (out) {
                    out.write(b, off, len);
                }
                saved.write(b, off, len);
            }
        }, true, StandardCharsets.UTF_8);
        Run[] run = new Run[1];
        Thread t = new Thread(() -> {
            try {
                main.invoke(null, (Object) args);
            } catch (InvocationTargetException e) {
                run[0].failure = e.getCause();
            } catch (IllegalAccessException e) {
                run[0].failure = e;
            }
        }, "snippet-" + snippet.className());
        run[0] = new Run(t, out, saved);
        System.setOut(tee);
        t.start();
        return run[0];
    }

    /** @return the compiled snippet's {@code main} */
    static Method compile(DocSnippets.Snippet snippet) {
        String name = snippet.className();
        if (name == null) {
            throw new AssertionError(snippet + " is not a program (no public class) and is not marked not run");
        }
        try {
            Path dir = Files.createTempDirectory("emq-snippet-");
            Path source = dir.resolve(name + ".java");
            Files.writeString(source, snippet.code());
            ToolProvider javac = ToolProvider.findFirst("javac")
                    .orElseThrow(() -> new AssertionError("no javac in this JDK"));
            StringWriter diagnostics = new StringWriter();
            PrintWriter to = new PrintWriter(diagnostics);
            int status = javac.run(to, to, "-classpath", System.getProperty("java.class.path"), "-d",
                    dir.toString(), "--release", "17", "-proc:none", "-encoding", "UTF-8", source.toString());
            to.flush();
            if (status != 0) {
                throw new AssertionError(snippet + " does not compile as written:\n" + diagnostics);
            }
            URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()},
                    ProgramRunner.class.getClassLoader());
            return loader.loadClass(name).getMethod("main", String[].class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(snippet + " has no public static void main(String[])", e);
        }
    }
}
