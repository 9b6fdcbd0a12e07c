package io.echomq.spring.dashboard;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code echomq.dashboard.*} properties: whether and where the application serves the
 * EchoMQ dashboard, and how it guards its actions. Holds values only;
 * {@link EchoMQDashboardAutoConfiguration} checks them at startup.
 */
@ConfigurationProperties("echomq.dashboard")
public class DashboardProperties {
    /**
     * Serve the dashboard in this application (a servlet web application with echomq-dashboard on
     * the class path). Off by default: it shows job payloads and can remove, cancel and redrive
     * jobs, on the application's own port and to whoever has the token, so it must be asked for.
     */
    private boolean enabled;

    /** The path the dashboard is served under, such as /echomq or /admin/jobs: one or more /segments, no trailing slash. */
    private String path = "/echomq";

    /**
     * The token every page needs: 16..256 characters of A-Z a-z 0-9 . _ ~ -. When absent, a random
     * one is made at each start and logged once (at WARN) with the URL to open.
     */
    private String token;

    /** Refuse every action (redrive, remove, cancel, pause, resume): the pages only. */
    private boolean readOnly;

    /** Created by Spring. */
    public DashboardProperties() {
    }

    /** @return whether the dashboard is served */
    public boolean isEnabled() {
        return enabled;
    }

    /** @param enabled whether the dashboard is served */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** @return the mount path */
    public String getPath() {
        return path;
    }

    /** @param path the mount path */
    public void setPath(String path) {
        this.path = path;
    }

    /** @return the token, or null for a random one */
    public String getToken() {
        return token;
    }

    /** @param token the token, or null for a random one */
    public void setToken(String token) {
        this.token = token;
    }

    /** @return whether every action is refused */
    public boolean isReadOnly() {
        return readOnly;
    }

    /** @param readOnly whether every action is refused */
    public void setReadOnly(boolean readOnly) {
        this.readOnly = readOnly;
    }
}
