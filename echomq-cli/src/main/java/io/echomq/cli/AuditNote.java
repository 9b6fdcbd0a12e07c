package io.echomq.cli;

import io.echomq.EchoMQException;
import io.echomq.audit.AuditAction;
import io.echomq.audit.AuditTarget;
import io.echomq.audit.AuditTrail;
import java.io.PrintWriter;

/**
 * What an {@code emq} command writes to the server's audit trail after it changed something: who
 * ran it, as {@code emq <user>@<host> pid <pid>}, and what it touched.
 *
 * <p>Duties: name the operator (the {@code user.name} of the JVM, the {@code HOSTNAME} variable, else
 * {@code localhost}: no name lookup, a command must not wait on DNS); write the record once the
 * action is done; and when it cannot be written, say so on stderr and keep the action's own output
 * and exit code, since the change is made and cannot be taken back.
 */
final class AuditNote {
    private AuditNote() {
    }

    /** @return {@code emq <user>@<host> pid <pid>}, cut to {@link AuditTrail#MAX_WHO} characters */
    static String who() {
        String who = ("emq " + System.getProperty("user.name", "unknown") + "@" + HolderLabel.host() + " pid "
                + ProcessHandle.current().pid()).replaceAll("\\p{Cntrl}", "_");
        return who.length() > AuditTrail.MAX_WHO ? who.substring(0, AuditTrail.MAX_WHO) : who;
    }

    /**
     * Records one action; a failure is told on {@code err} as {@code <command>: done, but no audit record was
     * written: <why>}, never thrown.
     */
    static void record(AuditTrail trail, AuditTarget target, AuditAction action, String detail, PrintWriter err,
                       String command) {
        try {
            trail.record(target, action, who(), detail);
        } catch (EchoMQException e) {
            err.println(command + ": done, but no audit record was written: " + e.getMessage());
            err.flush();
        }
    }
}
