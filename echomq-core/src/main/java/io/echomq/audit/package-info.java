/**
 * The audit trail: a record of what operators did to queues and locks (a pause, a redrive, a
 * purge, a takeover…), with who did it and when, kept on the server in one capped stream that
 * every tool reads alike. {@link io.echomq.audit.AuditTrail} writes and reads it;
 * {@link io.echomq.audit.AuditEntry} is one record and {@link io.echomq.audit.AuditTarget} what it
 * was done to. The {@code emq} commands and the dashboard record each action they take; an
 * application records its own through {@code QueueClient.auditTrail()} or {@code LockClient.auditTrail()}.
 */
package io.echomq.audit;
