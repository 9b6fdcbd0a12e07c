package io.echomq.dashboard;

import static io.echomq.dashboard.Html.esc;

import io.echomq.EchoMQException;
import io.echomq.audit.AuditAction;
import io.echomq.audit.AuditTarget;
import io.echomq.audit.AuditTrail;

/**
 * Records each action the dashboard took in the server's audit trail, naming the session that
 * asked ({@link Request#who()}).
 *
 * <p>Duties: write the record after the action, only when it changed something; and when the
 * record cannot be written, hand back a note for the outcome page instead of failing it, since the
 * action is done and cannot be taken back.
 */
final class ActionAudit {
    private final AuditTrail trail;

    ActionAudit(AuditTrail trail) {
        this.trail = trail;
    }

    /** @return "" once recorded, else an HTML paragraph that says no record was written and why */
    String record(Request r, AuditTarget target, AuditAction action, String detail) {
        try {
            trail.record(target, action, r.who(), detail);
            return "";
        } catch (EchoMQException e) {
            return "<p class=\"warning\">Done, but no audit record was written: " + esc(String.valueOf(e.getMessage()))
                    + "</p>";
        }
    }
}
