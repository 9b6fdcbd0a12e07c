package io.echomq.cli;

import io.echomq.queue.QueueClient;
import io.echomq.queue.QueueDirectory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * Refuses a queue command on a queue that is not stored, so that a typo never reads a phantom
 * queue of zeros nor writes a setting no worker reads.
 *
 * <p>A queue exists when {@link QueueDirectory#exists(String)} says so: one {@code EXISTS} of the
 * queue's own keys, its data or a setting stored with it (a sharded queue's partition count
 * included). Only a miss pays for more: one walk of the keyspace ({@link QueueDirectory#names()})
 * to name the stored queues close to the one typed.
 */
final class QueueLookup {
    /** Most names suggested. */
    static final int MAX_SUGGESTIONS = 3;
    /** Largest edit distance (insert, delete, replace, swap of neighbours) a suggestion may have. */
    static final int MAX_DISTANCE = 2;
    /** Shortest common start that makes a name a suggestion whatever its distance. */
    static final int MIN_PREFIX = 4;

    private QueueLookup() {
    }

    /**
     * @param client     the connected client
     * @param queue      a valid queue name
     * @param createHint the option that would create it with this command ("--create"), or null
     * @throws IllegalArgumentException (exit code 2) naming the queue and the close stored names,
     *                                  if no queue of that name is stored
     * @throws io.echomq.RedisCommandException if Redis fails
     */
    static void requireStored(QueueClient client, String queue, String createHint) {
        QueueDirectory directory = QueueDirectory.of(client);
        if (directory.exists(queue)) {
            return;
        }
        List<String> close = suggestions(queue, directory.names());
        StringBuilder message = new StringBuilder("no such queue '").append(queue).append('\'');
        if (!close.isEmpty()) {
            message.append("; did you mean ");
            for (int i = 0; i < close.size(); i++) {
                message.append(i == 0 ? "" : i == close.size() - 1 ? " or " : ", ").append('\'').append(close.get(i))
                        .append('\'');
            }
            message.append('?');
        } else {
            message.append(" on this server; a queue is created by its first enqueue");
            if (createHint != null) {
                message.append(", or by this command with ").append(createHint);
            }
        }
        throw new IllegalArgumentException(message.toString());
    }

    /**
     * @return the names of {@code known} within {@link #MAX_DISTANCE} edits of {@code typed}, or
     *     sharing its first {@link #MIN_PREFIX} characters (or all of the shorter one's, when that
     *     is at least 3 long), closest first, at most {@link #MAX_SUGGESTIONS}
     */
    static List<String> suggestions(String typed, Collection<String> known) {
        List<String> close = new ArrayList<>();
        for (String name : known) {
            if (!name.equals(typed) && (distance(typed, name) <= MAX_DISTANCE || sharesStart(typed, name))) {
                close.add(name);
            }
        }
        close.sort(Comparator.comparingInt((String name) -> distance(typed, name)).thenComparing(name -> name));
        return close.size() > MAX_SUGGESTIONS ? close.subList(0, MAX_SUGGESTIONS) : close;
    }

    private static boolean sharesStart(String a, String b) {
        int common = 0;
        int max = Math.min(a.length(), b.length());
        while (common < max && a.charAt(common) == b.charAt(common)) {
            common++;
        }
        return common >= MIN_PREFIX || (common == max && max >= 3);
    }

    /** @return the optimal-string-alignment distance: inserts, deletes, replaces and swaps of neighbours */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
