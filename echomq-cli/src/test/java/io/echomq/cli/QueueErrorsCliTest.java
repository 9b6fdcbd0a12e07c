package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Errors where the operator looks: {@code emq queue errors}, {@code --format json|csv} on the
 * listings with whole errors, and several ids in one {@code inspect}.
 */
class QueueErrorsCliTest extends QueueCliTestBase {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final String TRACE = "java.io.IOException: disk full\n\tat A.b(A.java:1)\n";

    private static String failed(String queue, int maxAttempts, String error) {
        Queue q = client.queue(queue);
        String id = q.enqueue("p".getBytes(StandardCharsets.UTF_8),
                EnqueueOptions.defaults().withMaxAttempts(maxAttempts)).id();
        Job job = q.claim(LEASE).orElseThrow();
        assertThat(job.id()).isEqualTo(id);
        job.fail(error);
        return id;
    }

    @Test
    void errorsListsTheGroupsMostFrequentFirst() {
        Instant before = Instant.now().minusSeconds(60);
        failed("q", 1, TRACE);
        failed("q", 1, TRACE);
        failed("q", 1, "java.lang.NullPointerException\n\tat C.d");

        EmqRun run = emq("queue", "errors", "q");

        assertThat(run.code()).isZero();
        assertThat(run.err()).isEmpty();
        String[] lines = run.out().split("\n");
        assertThat(lines).hasSize(2);
        String[] top = lines[0].split("\t");
        assertThat(top[0]).isEqualTo("2");
        assertThat(Instant.parse(top[1])).isBetween(before, Instant.now().plusSeconds(60));
        assertThat(Instant.parse(top[2])).isAfterOrEqualTo(Instant.parse(top[1]));
        assertThat(top[3]).isEqualTo("java.io.IOException: disk full");
        assertThat(lines[1]).startsWith("1\t").endsWith("\tjava.lang.NullPointerException");
        assertThat(emq("queue", "errors", "q", "--limit", "1").out()).hasLineCount(1);
    }

    @Test
    void errorsInJsonAndCsv() {
        failed("q", 1, TRACE);

        EmqRun json = emq("queue", "errors", "q", "--format", "json");
        assertThat(json.code()).isZero();
        assertThat(json.out()).matches("\\{\"count\":1,\"first_seen\":\"[^\"]+Z\",\"last_seen\":\"[^\"]+Z\","
                + "\"error\":\"java.io.IOException: disk full\"}\n");

        EmqRun csv = emq("queue", "errors", "q", "--format", "csv");
        assertThat(csv.out()).matches("count,first_seen,last_seen,error\r\n1,[^,]+Z,[^,]+Z,java.io.IOException: disk full\r\n");
        client.queue("calm").enqueue("x");
        assertThat(emq("queue", "errors", "calm", "--format", "csv").out()).isEqualTo("count,first_seen,last_seen,error\r\n");
        assertThat(emq("queue", "errors", "calm")).isEqualTo(new EmqRun(0, "", ""));
    }

    @Test
    void errorsOfAnUnknownQueueExitsTwo() {
        client.queue("emails").enqueue("x");
        EmqRun run = emq("queue", "errors", "emials");
        assertThat(run.code()).isEqualTo(2);
        assertThat(run.err()).contains("no such queue 'emials'").contains("did you mean 'emails'");
        assertThat(emq("queue", "errors", "emails", "--format", "xml").code()).isEqualTo(2);
    }

    @Test
    void deadInJsonAndCsvPrintsTheWholeError() {
        String id = failed("q", 1, TRACE);

        EmqRun json = emq("queue", "dead", "q", "--format", "json");
        assertThat(json.code()).isZero();
        assertThat(json.err()).isEmpty();
        assertThat(json.out()).matches("\\{\"id\":\"" + id + "\",\"died_at\":\"[^\"]+Z\",\"attempts\":1,"
                + "\"reason\":\"failed on attempt 1 of 1\",\"last_error\":"
                + "\"java.io.IOException: disk full\\\\n\\\\tat A.b\\(A.java:1\\)\\\\n\"}\n");

        EmqRun csv = emq("queue", "dead", "q", "--format", "csv");
        assertThat(csv.out()).startsWith("id,died_at,attempts,reason,last_error\r\n" + id + ",")
                .endsWith(",1,failed on attempt 1 of 1,\"" + TRACE + "\"\r\n");
    }

    @Test
    void listInJsonCarriesEachJobsWholeLastError() {
        String retried = failed("q", 3, TRACE);
        client.queue("q").enqueue("fresh");

        EmqRun run = emq("queue", "list", "q", "--state", "delayed", "--format", "json");
        assertThat(run.code()).isZero();
        assertThat(run.out()).startsWith("{\"id\":\"" + retried + "\",\"state\":\"delayed\",\"attempts\":1,\"priority\":0,")
                .contains("\"claimed_at\":\"").contains("\"finished_at\":null")
                .endsWith("\"last_error\":\"java.io.IOException: disk full\\n\\tat A.b(A.java:1)\\n\"}\n");
        EmqRun pending = emq("queue", "list", "q", "--format", "csv");
        assertThat(pending.out()).startsWith("id,state,attempts,priority,score,claimed_at,finished_at,last_error\r\n")
                .endsWith(",pending,0,0,,,,\r\n");
    }

    @Test
    void inspectTakesSeveralIdsAndShowsEachAttemptsError() {
        String a = failed("q", 3, "first\nline two");
        String b = failed("q", 3, "second");

        EmqRun run = emq("queue", "inspect", "q", a, b, "99");

        assertThat(run.code()).isEqualTo(1);
        assertThat(run.err()).startsWith("emq queue inspect: no job 99 in queue q (");
        String[] blocks = run.out().split("\n\n");
        assertThat(blocks).hasSize(2);
        assertThat(blocks[0]).startsWith("id=" + a + "\nstate=delayed\n").contains("\nlast_error=first\\nline two\n")
                .contains("\nerrors=[{");
        assertThat(blocks[1]).startsWith("id=" + b + "\nstate=delayed\n");

        EmqRun json = emq("queue", "inspect", "q", a, "--format", "json");
        assertThat(json.code()).isZero();
        assertThat(json.out()).startsWith("{\"id\":\"" + a + "\",\"state\":\"delayed\",")
                .contains("\"last_error\":\"first\\nline two\"")
                .matches("(?s).*\"errors\":\\[\\{\"attempt\":1,\"at\":\"[^\"]+Z\",\"error\":\"first\\\\nline two\"}]}\n");
        // one id prints as it always did: no id= line
        assertThat(emq("queue", "inspect", "q", b).out()).startsWith("state=delayed\n");
    }
}
