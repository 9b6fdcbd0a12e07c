package io.echomq.spring.queue;

import io.echomq.queue.EnqueueOptions;
import io.echomq.queue.EnqueueResult;
import io.echomq.queue.JobRequest;
import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueOperations;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Enqueues jobs with the same {@link PayloadCodec} that {@link EchoJobHandler} methods decode
 * with, so a producer's object reaches its handler as the same type:
 *
 * <pre>{@code
 * template.enqueue("emails", new Email("ada@example.com", "Welcome"));   // JSON, with Jackson
 *
 * @EchoJobHandler(queue = "emails")
 * void send(Email email) { ... }
 * }</pre>
 *
 * A queue is opened as it is stored ({@link QueueClient#open(String)}), plain or sharded, at the first
 * enqueue to its name (one round trip), and kept for the template's life.
 *
 * <p><b>Transactions.</b> Every method hands its encoded jobs to the template's
 * {@link EnqueueDispatcher}. The starter's default ({@link AfterCommitEnqueueDispatcher}, property
 * {@code echomq.template.transactional=after-commit}) sends at once outside a Spring transaction
 * and, inside one, after it commits: a rolled-back transaction must not leave a job acting on rows
 * that never existed. A deferred call cannot know the job's id, so:
 * <ul>
 *   <li>{@code enqueue} and {@code enqueueAll} return the result when the jobs were sent at once,
 *       and {@code null} when they were deferred;</li>
 *   <li>{@code submit} and {@code submitAll} return a {@link CompletableFuture}, already complete
 *       when sent at once; completed after the commit when deferred, exceptionally if the enqueue
 *       fails then (also logged at WARN with the queue and cause), cancelled if the transaction
 *       rolls back.</li>
 * </ul>
 * Input is checked and encoded when the method is called, in or out of a transaction: a bad
 * argument or a payload the codec cannot write throws at once and nothing is enqueued, then or
 * after the commit. What only Redis checks (a payload over the client's size limit, an unreachable
 * server) fails at the send: thrown by the call when it sends at once, reported through the
 * future and the log when deferred.
 *
 * <p>The core has no asynchronous enqueue, so neither has the template: {@code submit} is about
 * when the enqueue happens, not about another thread; a send at once blocks as {@code enqueue} does.
 *
 * <p>Thread-safe; a bean of the starter.
 */
public class EchoMQTemplate {
    private final QueueClient client;
    private final PayloadCodec codec;
    private final EnqueueDispatcher dispatcher;
    private final ConcurrentHashMap<String, QueueOperations> opened = new ConcurrentHashMap<>();

    /**
     * A template that follows the caller's Spring transaction when spring-tx is on the class path
     * ({@link AfterCommitEnqueueDispatcher}), else sends at once.
     *
     * @param client the queue client
     * @param codec the payload codec
     */
    public EchoMQTemplate(QueueClient client, PayloadCodec codec) {
        this(client, codec, EnqueueDispatcher.afterCommitAvailable(EchoMQTemplate.class.getClassLoader())
                ? new AfterCommitEnqueueDispatcher() : EnqueueDispatcher.immediate());
    }

    /**
     * @param client the queue client
     * @param codec the payload codec
     * @param dispatcher decides when the jobs are sent
     * @throws IllegalArgumentException if an argument is null
     */
    public EchoMQTemplate(QueueClient client, PayloadCodec codec, EnqueueDispatcher dispatcher) {
        if (client == null || codec == null || dispatcher == null) {
            throw new IllegalArgumentException("client, codec and dispatcher must not be null");
        }
        this.client = client;
        this.codec = codec;
        this.dispatcher = dispatcher;
    }

    /**
     * Enqueues with the default options.
     *
     * @return the new job's id; {@code null} when deferred to after the transaction's commit
     *     ({@link #submit(String, Object)} gives a future of it instead)
     * @throws IllegalArgumentException if the queue name is invalid, the payload is null, cannot be
     *     encoded or (sent at once) is too large; nothing is enqueued
     * @throws IllegalStateException if the queue's partition mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public String enqueue(String queue, Object payload) {
        EnqueueResult result = enqueue(queue, payload, EnqueueOptions.defaults());
        return result == null ? null : result.id();
    }

    /**
     * Enqueues with options: delay, priority, attempts, backoff, idempotency key.
     *
     * @return the job's id, and whether it was created (false when an idempotency key matched an
     *     earlier job); {@code null} when deferred to after the transaction's commit
     *     ({@link #submit(String, Object, EnqueueOptions)} gives a future of it instead)
     * @throws IllegalArgumentException if the queue name is invalid, the payload or options is null,
     *     the payload cannot be encoded or (sent at once) is too large; nothing is enqueued
     * @throws IllegalStateException if the queue's partition mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    public EnqueueResult enqueue(String queue, Object payload, EnqueueOptions options) {
        return nowOrNull(submit(queue, payload, options));
    }

    /**
     * Enqueues each payload as one job with the same options, as {@link #enqueueAll(String, List)}.
     *
     * @return one result per payload, in order; {@code null} when deferred to after the
     *     transaction's commit ({@link #submitAll(String, List, EnqueueOptions)} gives a future)
     * @throws IllegalArgumentException if the queue name is invalid, the list is null or empty, a
     *     payload is null or cannot be encoded, the options are null, or (sent at once) a payload is
     *     too large; nothing is enqueued
     * @throws IllegalStateException if the queue's partition mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails; earlier chunks may have been added
     */
    public List<EnqueueResult> enqueueAll(String queue, List<?> payloads, EnqueueOptions options) {
        return nowOrNull(submitAll(queue, payloads, options));
    }

    /**
     * Enqueues many jobs, each with its own options (an idempotency key among them: a key already
     * used in its window, by an earlier job or by one earlier in the list, names that job and
     * creates none), through the core's {@link io.echomq.queue.Queue#enqueueAll}: chunks of 1000
     * jobs, each one atomic script, in one round trip.
     *
     * @return one result per request, in order; {@code null} when deferred to after the
     *     transaction's commit ({@link #submitAll(String, List)} gives a future)
     * @throws IllegalArgumentException if the queue name is invalid, the list is null or empty, or a
     *     request, its payload or its options is null, a payload cannot be encoded, or (sent at
     *     once) is too large; nothing is enqueued (all payloads are encoded before any is sent)
     * @throws IllegalStateException if the queue's partition mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails; earlier chunks may have been added
     */
    public List<EnqueueResult> enqueueAll(String queue, List<PayloadJobRequest> jobs) {
        return nowOrNull(submitAll(queue, jobs));
    }

    /**
     * Enqueues with the default options, as {@link #submit(String, Object, EnqueueOptions)}.
     *
     * @return a future of the job's result
     * @throws IllegalArgumentException as {@link #submit(String, Object, EnqueueOptions)}
     * @throws IllegalStateException if the queue's partition mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails while sending at once
     */
    public CompletableFuture<EnqueueResult> submit(String queue, Object payload) {
        return submit(queue, payload, EnqueueOptions.defaults());
    }

    /**
     * Enqueues one job now, or after the caller's transaction commits (see the class's rule).
     *
     * @return a future of the job's id and whether it was created: complete when sent at once;
     *     when deferred, completed after the commit, exceptionally with the cause if the enqueue
     *     fails then, cancelled if the transaction rolls back
     * @throws IllegalArgumentException if the queue name is invalid, the payload or options is null,
     *     the payload cannot be encoded or (sent at once) is too large; nothing is enqueued
     * @throws IllegalStateException if the queue's partition mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails while sending at once
     */
    public CompletableFuture<EnqueueResult> submit(String queue, Object payload, EnqueueOptions options) {
        QueueOperations q = open(queue);
        List<JobRequest> one = List.of(encode(0, payload, options));
        return first(dispatcher.dispatch(queue, one,
                jobs -> List.of(q.enqueue(jobs.get(0).payload(), jobs.get(0).options()))));
    }

    /** The first result, cancelled when {@code all} is (thenApply would fail it instead). */
    private static CompletableFuture<EnqueueResult> first(CompletableFuture<List<EnqueueResult>> all) {
        if (all.isDone() && !all.isCompletedExceptionally()) {
            return CompletableFuture.completedFuture(all.join().get(0));
        }
        CompletableFuture<EnqueueResult> one = new CompletableFuture<>();
        all.whenComplete((results, failure) -> {
            if (all.isCancelled()) {
                one.cancel(false);
            } else if (failure != null) {
                one.completeExceptionally(failure instanceof CompletionException c && c.getCause() != null
                        ? c.getCause() : failure);
            } else {
                one.complete(results.get(0));
            }
        });
        return one;
    }

    /**
     * Enqueues each payload as one job with the same options, as {@link #submitAll(String, List)}.
     *
     * @return a future of one result per payload, in order
     * @throws IllegalArgumentException if the queue name is invalid, the list is null or empty, a
     *     payload is null or cannot be encoded, the options are null, or (sent at once) a payload is
     *     too large; nothing is enqueued
     * @throws IllegalStateException if the queue's partition mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails while sending at once
     */
    public CompletableFuture<List<EnqueueResult>> submitAll(String queue, List<?> payloads, EnqueueOptions options) {
        notEmpty(payloads, "payloads");
        List<PayloadJobRequest> jobs = new ArrayList<>(payloads.size());
        for (Object payload : payloads) {
            jobs.add(new PayloadJobRequest(payload, options));
        }
        return submitAll(queue, jobs);
    }

    /**
     * Enqueues many jobs, each with its own options, now or after the caller's transaction commits
     * (see the class's rule). Every payload is encoded before anything is sent.
     *
     * @return a future of one result per request, in order: complete when sent at once; when
     *     deferred, completed after the commit, exceptionally with the cause if the enqueue fails
     *     then, cancelled if the transaction rolls back
     * @throws IllegalArgumentException if the queue name is invalid, the list is null or empty, or a
     *     request, its payload or its options is null, a payload cannot be encoded, or (sent at
     *     once) is too large; nothing is enqueued
     * @throws IllegalStateException if the queue's partition mark holds something other than a count
     * @throws io.echomq.RedisCommandException if Redis fails while sending at once; earlier chunks
     *     may have been added
     */
    public CompletableFuture<List<EnqueueResult>> submitAll(String queue, List<PayloadJobRequest> jobs) {
        notEmpty(jobs, "jobs");
        List<JobRequest> encoded = new ArrayList<>(jobs.size());
        for (int i = 0; i < jobs.size(); i++) {
            PayloadJobRequest job = jobs.get(i);
            if (job == null) {
                throw new IllegalArgumentException("job " + i + " of " + jobs.size() + " is null");
            }
            encoded.add(encode(i, job.payload(), job.options()));
        }
        QueueOperations q = open(queue);
        return dispatcher.dispatch(queue, List.copyOf(encoded), q::enqueueAll);
    }

    /** @return the codec this template encodes with */
    public PayloadCodec codec() {
        return codec;
    }

    private JobRequest encode(int index, Object payload, EnqueueOptions options) {
        if (payload == null || options == null) {
            throw new IllegalArgumentException("job " + index + ": payload and options must not be null");
        }
        try {
            return new JobRequest(codec.encode(payload), options);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("job " + index + ": the payload cannot be encoded: " + e.getMessage(), e);
        }
    }

    private static void notEmpty(List<?> list, String what) {
        if (list == null || list.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be null or empty");
        }
    }

    /** The result of a send that ran at once, its exception as thrown; null for a deferred one. */
    private static <T> T nowOrNull(CompletableFuture<T> future) {
        if (!future.isDone()) {
            return null;
        }
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    private QueueOperations open(String queue) {
        if (queue == null) {
            throw new IllegalArgumentException("queue must not be null");
        }
        QueueOperations q = opened.get(queue);
        return q != null ? q : opened.computeIfAbsent(queue, client::open);
    }
}
