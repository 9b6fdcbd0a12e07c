package io.echomq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.echomq.lock.LockClient;
import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.Job;
import io.echomq.queue.Queue;
import io.echomq.queue.Schedule;
import io.echomq.queue.ScheduleSpec;
import io.echomq.queue.Worker;
import io.echomq.queue.WorkerDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * docs/operations.md, the runbook, run as it stands: the incident it describes is set up on a real server (a
 * {@code payments} queue with a third of its jobs dead, an {@code emails} queue held to one job by a cap while a
 * worker named {@code mailer} runs, a {@code nightly-billing} lock left by a holder that never released it, a
 * schedule every 5 s on {@code reports}, two dead jobs and a cancelled one on {@code refunds}), then every marked block of the page
 * runs in bash, in page order, with {@code emq} the CLI of this build and {@code EMQ_REDIS_URL} the server. The
 * comment {@code # exit N: text} under a command is checked: its exit code is N and what it prints (stdout and
 * stderr) contains the text. A line without such a comment (a variable set from a command) runs as written.
 */
@Timeout(300)
class RunbookTest extends QueueCliTestBase {
    private static final Pattern BLOCK = Pattern.compile("<!-- runbook: run by RunbookTest -->\\n```bash\\n(.*?)```",
            Pattern.DOTALL);
    private static final Pattern EXPECT = Pattern.compile("# exit (\\d+)(?:: (.*))?");

    @Test
    void theRunbookRunsAsWrittenAgainstTheIncident() throws Exception {
        String page = Files.readString(RepoPages.root().resolve("docs/operations.md"), StandardCharsets.UTF_8);
        List<String> blocks = new ArrayList<>();
        Matcher m = BLOCK.matcher(page);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        assertThat(blocks).as("the runbook's tasks, marked as run by this test").hasSize(11);

        Path dir = Files.createTempDirectory("emq-runbook");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path emq = bin.resolve("emq");
        Files.writeString(emq, "#!/bin/sh\nexec '" + Path.of(System.getProperty("java.home"), "bin", "java")
                + "' -XX:TieredStopAtLevel=1 -cp '" + System.getProperty("java.class.path") + "' " + Emq.class.getName() + " \"$@\"\n");
        Files.setPosixFilePermissions(emq, PosixFilePermissions.fromString("rwxr-xr-x"));
        StringBuilder script = new StringBuilder("set -u\n");
        int checks = 0;
        for (String block : blocks) {
            String[] lines = block.split("\n");
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i];
                Matcher expect = i + 1 < lines.length ? EXPECT.matcher(lines[i + 1].trim()) : null;
                if (expect != null && expect.matches()) {
                    Path text = dir.resolve("expect-" + checks + ".txt");
                    Files.writeString(text, expect.group(2) == null ? "" : expect.group(2), StandardCharsets.UTF_8);
                    script.append("printf '%s\\n' '---- ").append(line.replace("'", "'\\''")).append("'\n")
                            .append("out=$( { ").append(line).append(" ; } 2>&1 < /dev/null ); code=$?\n")
                            .append("printf '%s\\n' \"$out\" \"(exit $code)\"\n")
                            .append("[ \"$code\" = ").append(expect.group(1)).append(" ] || { echo 'FAILED: exit '\"$code\"', not ")
                            .append(expect.group(1)).append("' >&2; exit 1; }\n");
                    if (expect.group(2) != null) {
                        script.append("printf '%s' \"$out\" | grep -qF -f '").append(text)
                                .append("' || { echo 'FAILED: the output lacks the expected text' >&2; exit 1; }\n");
                    }
                    checks++;
                    i++;
                } else if (!line.isBlank() && !line.trim().startsWith("#")) {
                    script.append(line).append('\n');
                }
            }
        }
        assertThat(checks).as("commands whose exit code and output the page states").isGreaterThanOrEqualTo(25);
        Path file = dir.resolve("runbook.sh");
        Files.writeString(file, script.toString(), StandardCharsets.UTF_8);

        CountDownLatch release = new CountDownLatch(1);
        Worker mailer = incident(release);
        try {
            ProcessBuilder pb = new ProcessBuilder("bash", file.toString()).redirectErrorStream(true);
            Map<String, String> env = pb.environment();
            env.put("PATH", bin + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
            env.put(RedisOptions.ENV, REDIS.url());
            Process p = pb.start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(200, TimeUnit.SECONDS)).as("the runbook ends").isTrue();
            Files.writeString(Path.of("target", "runbook.log"), log, StandardCharsets.UTF_8);   // what each command printed
            assertThat(p.exitValue()).as("the runbook, as run:\n%s", log).isZero();
            assertThat(log).as("every check ran").contains("---- emq audit --limit 5 --format json");
        } finally {
            release.countDown();   // the mailer's handlers return, so its close need not wait out a grace
            mailer.close();
        }
    }

    /** Sets up the incident the page describes; returns the running {@code mailer} worker. */
    private static Worker incident(CountDownLatch release) throws IOException, InterruptedException {
        Queue payments = client.queue("payments");
        for (int i = 1; i <= 12; i++) {
            payments.enqueue("{\"payment\":" + i + "}", EnqueueOptions.defaults().withMaxAttempts(1));
        }
        for (int i = 1; i <= 12; i++) {
            Job job = payments.claim(Duration.ofSeconds(30)).orElseThrow();
            if (Long.parseLong(job.id()) % 3 == 2) {   // ids 2, 5, 8 and 11: a third of them
                job.fail("java.lang.IllegalStateException: card processor answered 502");
                Thread.sleep(3);   // each death in its own millisecond: the dead set orders by it, then by id as text
            } else {
                job.complete();
            }
        }
        Queue emails = client.queue("emails");
        emails.flowControl().setConcurrencyCap(1);
        for (int i = 0; i < 30; i++) {
            emails.enqueue("{\"to\":\"user" + i + "@example.com\"}");
        }
        Worker mailer = client.worker("emails", job -> release.await()).name("mailer").concurrency(4)
                .lease(Duration.ofSeconds(30)).maintenanceInterval(Duration.ofMillis(200)).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (WorkerDirectory.of(client).list("emails").stream().noneMatch(w -> !w.jobIds().isEmpty())) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the mailer's heartbeat never listed its job");
            }
            Thread.sleep(50);
        }
        try (LockClient billing = LockClient.builder().redisUrl(REDIS.url()).holderLabel("billing@app-3:4242").build()) {
            billing.tryAcquire("nightly-billing", Duration.ofMinutes(10)).orElseThrow();   // never released: kill -9
        }
        client.schedules("reports").upsert(Schedule.of("every-5s", ScheduleSpec.every(Duration.ofSeconds(5)), "{}"));
        Queue refunds = client.queue("refunds");
        for (int i = 1; i <= 2; i++) {   // ids 1 and 2: dead
            refunds.enqueue("{\"refund\":" + i + "}", EnqueueOptions.defaults().withMaxAttempts(1));
            refunds.claim(Duration.ofSeconds(30)).orElseThrow().fail("bank rejected the refund");
            Thread.sleep(3);
        }
        refunds.cancel(refunds.enqueue("{\"refund\":3}"));   // id 3: cancelled
        return mailer;
    }
}
