package io.echomq.queue;

import io.echomq.internal.QueueKeys;
import io.echomq.internal.RedisEngine;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The operator's whole-queue calls of a {@link ShardedQueue}: listing, retention and delete, over
 * its partitions.
 *
 * <ol>
 *   <li>Listing ({@link #list}): the partitions one after the other, 0 first, each walked in its
 *       own order with its own cursor; the cursor is {@code <partition>,<that partition's cursor>},
 *       or {@code <partition>,s} for the start of a partition.</li>
 *   <li>Retention ({@link #setRetention}): the same settings stored in every partition, read back
 *       from partition 0.</li>
 *   <li>Delete ({@link #delete}): the active jobs of every partition counted first, the refusal
 *       decided on their sum; then each partition deleted in turn, then the partition mark.</li>
 * </ol>
 *
 * <p>No merged order across partitions exists (FIFO holds within a partition only), so the
 * listing does not pretend one. Arguments are checked by the caller, except the cursor.
 */
final class ShardListing {
    private static final Pattern CURSOR = Pattern.compile("([0-9]{1,4}),(s|.+)");

    private final String name;
    private final PartitionSpan span;

    ShardListing(String name, PartitionSpan span) {
        this.name = name;
        this.span = span;
    }

    /** @throws IllegalArgumentException if the cursor is malformed or names no partition spanned */
    JobPage list(JobState state, int limit, String cursor) {
        List<Partition> parts = span.queues();
        int p = 0;
        ListCursor at = ListCursor.START;
        if (cursor != null) {
            Matcher m = CURSOR.matcher(cursor);
            if (!m.matches()) {
                throw new IllegalArgumentException("malformed cursor '" + ListCursor.shorten(cursor)
                        + "': a sharded queue's cursor is <partition>,<cursor>; pass back the one a page returned");
            }
            p = Integer.parseInt(m.group(1));
            if (p >= parts.size()) {
                throw new IllegalArgumentException("cursor '" + ListCursor.shorten(cursor) + "' names partition " + p
                        + ", but " + name + " has " + parts.size());
            }
            at = m.group(2).equals("s") ? ListCursor.START : ListCursor.parse(m.group(2), state);
        }
        List<JobSummary> jobs = new ArrayList<>();
        while (p < parts.size()) {
            JobPage page = parts.get(p).listing().page(state, limit - jobs.size(), at);
            jobs.addAll(page.jobs());
            if (page.next().isPresent()) {
                return new JobPage(jobs, Optional.of(p + "," + page.next().get()));
            }
            p++;
            at = ListCursor.START;
            if (jobs.size() == limit) {
                return new JobPage(jobs, p < parts.size() ? Optional.of(p + ",s") : Optional.empty());
            }
        }
        return new JobPage(jobs, Optional.empty());
    }

    Optional<QueueRetention> retention() {
        return span.queues().get(0).retention();
    }

    void setRetention(QueueRetention settings) {
        for (Partition q : span.queues()) {
            q.setRetention(settings);
        }
    }

    DeleteResult delete(boolean force, LongConsumer progress) {
        List<Partition> parts = span.queues();
        long active = 0;
        for (Partition q : parts) {
            active += q.deletion().active();
        }
        if (active > 0 && !force) {
            return new DeleteResult(false, active, 0);
        }
        long keys = 0;
        for (Partition q : parts) {
            long before = keys;
            DeleteResult r = q.deletion().delete(force, n -> progress.accept(before + n));
            if (!r.deleted()) {
                return new DeleteResult(false, r.activeJobs(), keys);   // a claim came in since the count
            }
            keys += r.keys();
        }
        String mark = QueueKeys.ofUserName(name).partitionsMark();
        Partition first = parts.get(0);
        keys += RedisEngine.await(RedisEngine.async(first.context().engine().binary()).unlink(mark).toCompletableFuture(),
                "UNLINK", name);
        return new DeleteResult(true, active, keys);
    }
}
