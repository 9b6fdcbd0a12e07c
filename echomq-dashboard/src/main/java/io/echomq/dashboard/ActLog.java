package io.echomq.dashboard;

/**
 * Where a long act tells what it does as it goes: each command with its reply, remarks, and
 * verdicts. {@code emq demo} prints them; the dashboard draws the act from its record instead and
 * passes {@link #SILENT}.
 */
public interface ActLog {
    /** A log that drops everything. */
    ActLog SILENT = new ActLog() {
        @Override
        public void command(String who, String command, String reply) {
        }

        @Override
        public void note(String who, String text) {
        }

        @Override
        public void verdict(String text) {
        }
    };

    /**
     * One command sent by {@code who}, and the reply it got.
     *
     * @param who     the sender's short name ({@code w1}, {@code P}), or "" for a read by the act itself
     * @param command the command as sent, or a description of it
     * @param reply   the reply, in words
     */
    void command(String who, String command, String reply);

    /**
     * A remark by {@code who} ("" for none).
     *
     * @param who  the actor's short name, or ""
     * @param text the remark
     */
    void note(String who, String text);

    /**
     * A verdict computed from the replies.
     *
     * @param text the verdict
     */
    void verdict(String text);
}
