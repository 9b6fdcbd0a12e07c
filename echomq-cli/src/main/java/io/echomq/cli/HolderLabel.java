package io.echomq.cli;

import io.echomq.lock.LockInfo;

/**
 * The holder label the {@code emq} commands give their lock clients: {@code <host>:<pid>:<app>},
 * so that an operator who inspects a lock sees which machine and process took it. The host is the
 * {@code HOSTNAME} environment variable, else {@code localhost} (no name lookup: a command must not
 * wait on DNS); characters a label may not hold become {@code _}, and it is cut to the label's
 * maximum length.
 */
final class HolderLabel {
    private HolderLabel() {
    }

    /**
     * @param app the application part, e.g. {@code emq}
     * @return {@code <host>:<pid>:<app>}, a valid label of at most {@link LockInfo#MAX_LABEL} characters
     */
    static String of(String app) {
        String label = (host() + ":" + ProcessHandle.current().pid() + ":" + app).replaceAll("[^A-Za-z0-9._:@/-]", "_");
        return label.length() > LockInfo.MAX_LABEL ? label.substring(0, LockInfo.MAX_LABEL) : label;
    }

    /** @return the {@code HOSTNAME} environment variable, else {@code localhost}: no name lookup */
    static String host() {
        String host = System.getenv("HOSTNAME");
        return host == null || host.isBlank() ? "localhost" : host;
    }
}
