package io.echomq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.observe.Instrumentation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The names an extra job field may have: never one of the protocol's own fields, as the page
 * {@code docs/protocol.md} lists them, so that a field added to the protocol without being
 * reserved here fails this test.
 */
class JobFieldNamesTest {

    @Test
    void everyFieldOfTheProtocolPagesJobHashTableIsReserved() throws IOException {
        String page = Files.readString(Path.of("..", "docs", "protocol.md"));
        int from = page.indexOf("### Job hash fields");
        int to = page.indexOf("\n#", from + 5);
        assertThat(from).as("the page has its job hash table").isPositive();
        Set<String> documented = new LinkedHashSet<>();
        Matcher m = Pattern.compile("(?m)^\\| `([a-z_]+)` \\|").matcher(page.substring(from, to));
        while (m.find()) {
            documented.add(m.group(1));
        }
        assertThat(documented).contains("payload", "attempts", "created_at");
        assertThat(JobFieldNames.RESERVED).isEqualTo(documented);
    }

    @Test
    void namesAreShortLowerCaseAndNoneOfTheProtocols() {
        JobFieldNames.check("traceparent");
        JobFieldNames.check("x-b3_sampled");
        JobFieldNames.check("a".repeat(64));
        for (String bad : new String[] {null, "", "Trace", "1abc", "a:b", "a b", "a".repeat(65), "payload", "state"}) {
            assertThatThrownBy(() -> JobFieldNames.check(bad)).as(String.valueOf(bad))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        List<String> refused = new ArrayList<>();
        List<String> asked = new ArrayList<>(List.of("traceparent", "payload", "Bad"));
        for (int i = 0; i < Instrumentation.MAX_JOB_FIELDS; i++) {
            asked.add("f" + i);
        }
        Set<String> kept = JobFieldNames.allowed(asked, refused::add);
        assertThat(kept).hasSize(Instrumentation.MAX_JOB_FIELDS).startsWith("traceparent");
        assertThat(refused).hasSize(3);
    }
}
