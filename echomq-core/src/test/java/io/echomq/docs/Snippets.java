package io.echomq.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

/** Finds the snippets a docs test runs, by the name of their program. */
final class Snippets {
    private Snippets() {
    }

    /**
     * @param className the program's public class
     * @return every snippet that declares it (README.md and a docs page may both show one program), at least one
     */
    static List<DocSnippets.Snippet> named(String className) {
        List<DocSnippets.Snippet> found = DocSnippets.all().stream()
                .filter(s -> className.equals(s.className()) && s.notRunWhy() == null).toList();
        assertThat(found).as("snippets declaring " + className).isNotEmpty();
        return found;
    }
}
