package io.echomq.example;

import io.echomq.queue.Job;
import io.echomq.spring.queue.EchoJobHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Handles the {@code emails} queue: each job's JSON payload arrives as an {@link Email}. "Sending"
 * here is a log line and a count in the {@link Journal}; a real mailer would call its SMTP server.
 * Returning completes the job; an exception would retry it.
 */
@Component
public class Mailer {
    private static final Logger log = LoggerFactory.getLogger(Mailer.class);

    private final Journal journal;
    private final Instance instance;

    /**
     * @param journal  where sent emails are counted
     * @param instance this process's name
     */
    public Mailer(Journal journal, Instance instance) {
        this.journal = journal;
        this.instance = instance;
    }

    /**
     * Sends one email.
     *
     * @param email the payload
     * @param job   the job, for its id
     */
    @EchoJobHandler(queue = "emails", concurrency = 4)
    public void send(Email email, Job job) {
        long times = journal.emailSent(job.id(), instance.id());
        log.info("sent '{}' to {} (job {}, attempt {}, handled {} time(s))", email.subject(), email.to(), job.id(),
                job.attempt(), times);
    }
}
