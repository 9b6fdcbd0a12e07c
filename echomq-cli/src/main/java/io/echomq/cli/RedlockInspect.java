package io.echomq.cli;

import io.echomq.lock.LockInfo;
import io.echomq.lock.RedlockClient;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The output of {@code emq lock inspect --redlock}: a verdict line, then one line per master. */
final class RedlockInspect {
    private RedlockInspect() {
    }

    /**
     * @return {@code held token=<t> masters=<k>/<n> fence=<largest>} when one token holds a majority
     *     of the masters, else {@code free fence=<largest>}; then, per master in the order given,
     *     {@code master <url> <single-server inspect line>} or {@code master <url> unreachable}; each
     *     line ends with a newline
     */
    static String describe(RedlockClient locks, List<Optional<LockInfo>> infos) {
        Map<String, Integer> holders = new LinkedHashMap<>();
        long fence = 0;
        for (Optional<LockInfo> info : infos) {
            if (info.isPresent()) {
                fence = Math.max(fence, info.get().lastFence());
                info.get().holderToken().ifPresent(t -> holders.merge(t, 1, Integer::sum));
            }
        }
        StringBuilder out = new StringBuilder();
        String verdict = "free fence=" + fence;
        for (Map.Entry<String, Integer> h : holders.entrySet()) {
            if (h.getValue() >= locks.quorum()) {
                verdict = "held token=" + h.getKey() + " masters=" + h.getValue() + "/" + infos.size() + " fence=" + fence;
            }
        }
        out.append(verdict).append('\n');
        for (int i = 0; i < infos.size(); i++) {
            out.append("master ").append(locks.masterUrl(i)).append(' ')
                    .append(infos.get(i).map(LockCommands.Inspect::describe).orElse("unreachable")).append('\n');
        }
        return out.toString();
    }
}
