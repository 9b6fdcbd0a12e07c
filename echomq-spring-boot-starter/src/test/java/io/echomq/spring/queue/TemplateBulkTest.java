package io.echomq.spring.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueStats;
import io.echomq.testkit.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

/**
 * EchoMQTemplate's bulk enqueue on a real Redis, outside any transaction: options per job,
 * idempotency keys, payloads through the codec, and all-or-nothing input checks.
 */
class TemplateBulkTest {
    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    record Email(String to, String subject) {
    }

    /** Jackson cannot write it: its accessor throws. */
    record Unwritable(String value) {
        @Override
        public String value() {
            throw new IllegalStateException("not writable");
        }
    }

    private QueueClient client;
    private EchoMQTemplate template;

    @BeforeEach
    void open() {
        client = QueueClient.create(REDIS.url());
        template = new EchoMQTemplate(client, new JacksonPayloadCodec(JsonMapper.builder().build()),
                EnqueueDispatcher.immediate());
    }

    @AfterEach
    void close() {
        client.close();
    }

    private Object decoded(String queue, EnqueueResult result, Class<?> type) {
        return template.codec().decode(client.queue(queue).inspect(result.id()).orElseThrow().payload(), type);
    }

    @Test
    void payloadsWithOneOptionsAreEncodedWithTheCodecInOrder() {
        List<Email> emails = List.of(new Email("a@x", "1"), new Email("b@x", "2"), new Email("c@x", "3"));
        List<EnqueueResult> results = template.enqueueAll("bulk-one", emails, EnqueueOptions.defaults().withDelay(Duration.ofHours(1)));
        assertThat(results).hasSize(3).allMatch(EnqueueResult::created);
        for (int i = 0; i < 3; i++) {
            assertThat(decoded("bulk-one", results.get(i), Email.class)).isEqualTo(emails.get(i));
        }
        assertThat(client.queue("bulk-one").stats().delayed()).as("the options apply to every job").isEqualTo(3);
    }

    @Test
    void eachRequestKeepsItsOwnOptionsAndADuplicateKeyGivesOneJob() {
        EnqueueOptions key = EnqueueOptions.defaults().withIdempotencyKey("signup-ada", Duration.ofMinutes(10));
        List<EnqueueResult> results = template.enqueueAll("bulk-each", List.of(
                PayloadJobRequest.of(new Email("ada@x", "Welcome"), key),
                PayloadJobRequest.of(new Email("bob@x", "Later"), EnqueueOptions.defaults().withDelay(Duration.ofHours(1))),
                PayloadJobRequest.of(new Email("ada@x", "Welcome again"), key),
                PayloadJobRequest.of("plain text")));
        assertThat(results).extracting(EnqueueResult::created).containsExactly(true, true, false, true);
        assertThat(results.get(2).id()).isEqualTo(results.get(0).id());
        assertThat(decoded("bulk-each", results.get(0), Email.class)).isEqualTo(new Email("ada@x", "Welcome"));
        assertThat(decoded("bulk-each", results.get(3), String.class)).isEqualTo("plain text");
        QueueStats stats = client.queue("bulk-each").stats();
        assertThat(stats.pending()).isEqualTo(2);
        assertThat(stats.delayed()).isEqualTo(1);

        // A later call with the same key in its window names the same job again.
        EnqueueResult again = template.enqueue("bulk-each", new Email("ada@x", "Third"), key);
        assertThat(again.created()).isFalse();
        assertThat(again.id()).isEqualTo(results.get(0).id());
    }

    @Test
    void aCodecFailureOnTheFifthOfTenPayloadsEnqueuesNone() {
        List<Object> payloads = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            payloads.add(i == 4 ? new Unwritable("x") : new Email(i + "@x", "s"));
        }
        assertThatThrownBy(() -> template.enqueueAll("bulk-codec", payloads, EnqueueOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("job 4")
                .hasMessageContaining(Unwritable.class.getName());
        List<PayloadJobRequest> requests = payloads.stream().map(PayloadJobRequest::of).toList();
        assertThatThrownBy(() -> template.submitAll("bulk-codec", requests)).isInstanceOf(IllegalArgumentException.class);
        assertThat(client.queue("bulk-codec").stats().pending()).isZero();
    }

    @Test
    void badInputIsRefusedWithAClearErrorAndNothingIsEnqueued() {
        Email ok = new Email("a@x", "s");
        assertThatThrownBy(() -> template.enqueueAll("bulk-bad", List.of(), EnqueueOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> template.enqueueAll("bulk-bad", (List<PayloadJobRequest>) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
        assertThatThrownBy(() -> template.enqueueAll("bulk-bad", List.of(ok, ok), null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("job 0");
        assertThatThrownBy(() -> template.enqueueAll("bulk-bad", Arrays.asList(ok, null), EnqueueOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("job 1");
        assertThatThrownBy(() -> template.enqueueAll("bulk-bad", Arrays.asList(PayloadJobRequest.of(ok), null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("job 1");
        assertThatThrownBy(() -> template.enqueueAll("bulk-bad",
                List.of(PayloadJobRequest.of(ok), new PayloadJobRequest(ok, null))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("job 1");
        assertThatThrownBy(() -> template.enqueueAll(null, List.of(ok), EnqueueOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queue");
        assertThatThrownBy(() -> template.submit("bulk-bad", ok, null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(client.queue("bulk-bad").stats().pending()).isZero();
    }

    @Test
    void submitOutsideATransactionIsCompleteOnReturn() {
        assertThat(template.submit("bulk-submit", new Email("a@x", "s"))).isCompleted();
        assertThat(template.submitAll("bulk-submit", List.of("a", "b"), EnqueueOptions.defaults()).join()).hasSize(2);
        assertThat(client.queue("bulk-submit").stats().pending()).isEqualTo(3);
    }
}
