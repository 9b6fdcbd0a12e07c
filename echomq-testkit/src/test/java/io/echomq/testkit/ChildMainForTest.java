package io.echomq.testkit;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** A child JVM for {@link ChildJvmTest}: prints {@code ready <pid>}, then echoes stdin lines back, upper-cased. */
public final class ChildMainForTest {
    private ChildMainForTest() {
    }

    /**
     * Runs the echo loop until stdin ends.
     *
     * @param args ignored
     * @throws Exception if stdin fails
     */
    public static void main(String[] args) throws Exception {
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            System.out.println("echo " + line.toUpperCase(java.util.Locale.ROOT));
            System.out.flush();
        }
    }
}
