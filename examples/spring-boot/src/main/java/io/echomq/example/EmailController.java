package io.echomq.example;

import io.echomq.spring.queue.EchoMQTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /emails} with an {@link Email} as JSON enqueues it on the {@code emails} queue and
 * answers {@code 202 Accepted} with {@code {"id": "<job id>"}}. Any instance's {@link Mailer} may
 * handle it. A Redis failure answers 500.
 */
@RestController
public class EmailController {
    private final EchoMQTemplate template;

    /** @param template the starter's enqueue helper */
    public EmailController(EchoMQTemplate template) {
        this.template = template;
    }

    /**
     * The answer to an enqueue.
     *
     * @param id the job's id
     */
    public record Enqueued(String id) {
    }

    /**
     * Enqueues one email.
     *
     * @param email the email
     * @return the new job's id
     */
    @PostMapping("/emails")
    @ResponseStatus(HttpStatus.ACCEPTED)
    public Enqueued enqueue(@RequestBody Email email) {
        return new Enqueued(template.enqueue("emails", email));
    }
}
