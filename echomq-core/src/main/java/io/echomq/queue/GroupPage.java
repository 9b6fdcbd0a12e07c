package io.echomq.queue;

import java.util.List;
import java.util.Optional;

/**
 * One page of a queue's fair groups ({@link FairGroups#list}): the groups with ready or active
 * jobs, then the paused ones without either, each listed once per partition.
 *
 * @param groups the groups of this page, in no stated order
 * @param next   the cursor of the next page, or {@code null} when this is the last
 */
public record GroupPage(List<GroupCount> groups, String next) {
    public GroupPage {
        groups = List.copyOf(groups);
    }

    /** @return the cursor of the next page; empty when this is the last */
    public Optional<String> nextCursor() {
        return Optional.ofNullable(next);
    }
}
