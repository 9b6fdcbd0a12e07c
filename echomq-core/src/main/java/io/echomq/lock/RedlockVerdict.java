package io.echomq.lock;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The masters' verdict on one Redlock lock, from one snapshot per master: what
 * {@link RedlockClient#inspect} answers, in the {@link LockInfo} of a single server.
 *
 * <ol>
 *   <li>Held: by the token that at least a quorum of masters hold; a minority grant is not a
 *       lock, so with no such token the lock is free.</li>
 *   <li>Ttl: how long a quorum still holds it, the quorum-th longest of that token's ttls, where
 *       "no expiry" ({@code -1}) counts as the longest.</li>
 *   <li>Fence: the largest last fence among the masters that answered.</li>
 * </ol>
 */
final class RedlockVerdict {
    private RedlockVerdict() {
    }

    static LockInfo of(String resource, List<Optional<LockInfo>> masters, int quorum) {
        long fence = 0;
        Map<String, List<Long>> ttlsByToken = new HashMap<>();
        for (Optional<LockInfo> m : masters) {
            if (m.isEmpty()) {
                continue;
            }
            LockInfo info = m.get();
            fence = Math.max(fence, info.lastFence());
            info.holderToken().ifPresent(t -> ttlsByToken.computeIfAbsent(t, k -> new ArrayList<>()).add(info.ttlMillis()));
        }
        for (Map.Entry<String, List<Long>> e : ttlsByToken.entrySet()) {
            List<Long> ttls = e.getValue();
            if (ttls.size() >= quorum) {
                // Longest first, with no expiry (-1) longest of all; the quorum-th is how long a quorum holds.
                ttls.sort((a, b) -> Long.compare(b == -1 ? Long.MAX_VALUE : b, a == -1 ? Long.MAX_VALUE : a));
                return new LockInfo(resource, e.getKey(), ttls.get(quorum - 1), fence);
            }
        }
        return new LockInfo(resource, null, -2, fence);
    }
}
