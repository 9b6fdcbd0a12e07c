package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@code emq queue enqueue} reads: an empty payload is refused unless {@code --allow-empty},
 * and {@code --lines} enqueues one job per line of stdin in bulks, printing the ids in order.
 */
@Timeout(120)
class EnqueueInputTest extends QueueCliTestBase {

    private static EmqRun withStdin(String stdin, String... args) {
        return EmqRun.run(Map.of(RedisOptions.ENV, REDIS.url()),
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), args);
    }

    @Test
    void anEmptyPayloadIsRefusedUnlessAllowed() {
        EmqRun empty = emq("queue", "enqueue", "q", "");
        assertThat(empty.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(empty.err()).contains("<payload> is empty").contains("--allow-empty");
        EmqRun emptyStdin = withStdin("", "queue", "enqueue", "q", "-");
        assertThat(emptyStdin.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(emptyStdin.err()).contains("nothing on stdin");
        assertThat(emq("queue", "stats", "q").err()).as("no queue was made").contains("no such queue 'q'");

        EmqRun allowed = emq("queue", "enqueue", "q", "", "--allow-empty");
        assertThat(allowed).isEqualTo(new EmqRun(0, "1\n", ""));
        assertThat(emq("queue", "stats", "q").out()).startsWith("pending=1 ");
    }

    @Test
    void theHelpStatesThePayloadLimit() {
        String help = EmqRun.run(Map.of(), "queue", "enqueue", "-h").out().replaceAll("\\s+", " ");
        assertThat(help).contains("1.." + io.echomq.queue.QueueClient.DEFAULT_MAX_PAYLOAD_BYTES + " bytes",
                "--allow-empty", "--lines");
    }

    @Test
    void maxPayloadRaisesTheLimitUpToTheClients() {
        String big = "x".repeat(io.echomq.queue.QueueClient.DEFAULT_MAX_PAYLOAD_BYTES + 1);
        EmqRun refused = withStdin(big, "queue", "enqueue", "q", "-");
        assertThat(refused.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(refused.err()).contains("over the limit of 1048576 bytes", "--max-payload");

        EmqRun raised = withStdin(big, "queue", "enqueue", "q", "-", "--max-payload", "2000000");
        assertThat(raised).isEqualTo(new EmqRun(0, "1\n", ""));
        assertThat(client.queue("q").inspect("1").orElseThrow().field("payload")).hasSize(big.length());

        EmqRun tooHigh = emq("queue", "enqueue", "q", "x", "--max-payload", "67108865");
        assertThat(tooHigh.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(tooHigh.err()).contains("1..67108864");
    }

    @Test
    void tenThousandLinesBecomeTenThousandJobsInOrder() {
        int n = 10_000;
        String input = IntStream.range(0, n).mapToObj(i -> "{\"n\":" + i + "}").collect(Collectors.joining("\n"));

        EmqRun run = withStdin(input + "\n", "queue", "enqueue", "bulk", "--lines", "--priority", "5");

        assertThat(run.code()).as(run.err()).isZero();
        List<String> ids = run.out().lines().toList();
        assertThat(ids).hasSize(n);
        assertThat(ids.get(0)).isEqualTo("1");
        assertThat(ids.get(n - 1)).isEqualTo(Integer.toString(n));
        assertThat(run.err()).contains(n + " jobs enqueued");
        assertThat(emq("queue", "stats", "bulk").out()).startsWith("pending=" + n + " ");
        assertThat(emq("queue", "inspect", "bulk", "1234").out()).contains("payload={\"n\":1233}", "priority=5");
    }

    @Test
    void linesKeepTheirBytesAndStopAtAnEmptyLine() {
        EmqRun crlf = withStdin("a\r\nb\nc", "queue", "enqueue", "q", "--lines");
        assertThat(crlf).isEqualTo(new EmqRun(0, "1\n2\n3\n", ""));
        assertThat(emq("queue", "inspect", "q", "1").out()).contains("payload=a\n");
        assertThat(emq("queue", "inspect", "q", "3").out()).contains("payload=c\n");

        EmqRun gap = withStdin("d\n\ne\n", "queue", "enqueue", "q", "--lines");
        assertThat(gap.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(gap.out()).isEqualTo("4\n");
        assertThat(gap.err()).contains("line 2 is empty").contains("the 1 lines before it were enqueued");

        EmqRun allowed = withStdin("\n", "queue", "enqueue", "q", "--lines", "--allow-empty");
        assertThat(allowed).isEqualTo(new EmqRun(0, "5\n", ""));

        EmqRun nothing = withStdin("", "queue", "enqueue", "q", "--lines");
        assertThat(nothing.code()).isZero();
        assertThat(nothing.err()).contains("nothing was enqueued");
    }

    @Test
    void linesRefuseAPayloadArgumentAndAKey() {
        EmqRun both = withStdin("x\n", "queue", "enqueue", "q", "payload", "--lines");
        assertThat(both.code()).isEqualTo(ExitCodes.BAD_INPUT);
        EmqRun keyed = withStdin("x\n", "queue", "enqueue", "q", "--lines", "--key", "k");
        assertThat(keyed.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(keyed.err()).contains("--key");
        EmqRun none = emq("queue", "enqueue", "q");
        assertThat(none.code()).isEqualTo(ExitCodes.BAD_INPUT);
        assertThat(none.err()).contains("<payload>");
        assertThat(emq("queue", "stats", "q").err()).as("no queue was made").contains("no such queue 'q'");
    }
}
