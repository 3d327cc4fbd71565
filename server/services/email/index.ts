import { pool } from "../../db";
import { env } from "../../env";
import { authorize, type OperatorContext } from "../command";

/** One message players were (or will be) sent, as operators see it: the body too (the outbox is for reading). */
export type EmailRow = {
  id: string;
  playerId: string | null;
  template: string;
  to: string;
  from: string;
  subject: string;
  text: string;
  status: "QUEUED" | "SENT" | "FAILED" | "OUTBOX";
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
};

/**
 * The project's e-mail, newest first, for any member: queued, sent, failed (with the SMTP
 * server's last answer) and, without SMTP_URL, the outbox. Codes in the bodies are single-use
 * and short-lived; members can already do more to a player than read them.
 */
export async function listEmailsAs(
  ctx: OperatorContext,
  o: { projectId: string; status?: EmailRow["status"]; cursor?: string; limit: number },
): Promise<{ smtpConfigured: boolean; messages: EmailRow[]; nextCursor: string | null }> {
  await authorize(ctx, o.projectId, "VIEWER");
  const { rows } = await pool().query<{
    id: string;
    player_id: string | null;
    template: string;
    to_address: string;
    from_address: string;
    subject: string;
    text: string;
    status: EmailRow["status"];
    attempts: number;
    last_error: string | null;
    created_at: Date;
    sent_at: Date | null;
  }>(
    `SELECT id, player_id, template, to_address, from_address, subject, text, status, attempts, last_error, created_at, sent_at
       FROM email_messages
      WHERE project_id = $1 AND ($2::"EmailStatus" IS NULL OR status = $2::"EmailStatus")
        AND ($3::uuid IS NULL OR (created_at, id) < (SELECT created_at, id FROM email_messages WHERE id = $3::uuid AND project_id = $1))
      ORDER BY created_at DESC, id DESC
      LIMIT $4`,
    [o.projectId, o.status ?? null, o.cursor ?? null, o.limit + 1],
  );
  const page = rows.slice(0, o.limit);
  return {
    smtpConfigured: env().SMTP_URL !== undefined,
    messages: page.map((r) => ({
      id: r.id,
      playerId: r.player_id,
      template: r.template,
      to: r.to_address,
      from: r.from_address,
      subject: r.subject,
      text: r.text,
      status: r.status,
      attempts: r.attempts,
      lastError: r.last_error,
      createdAt: r.created_at.toISOString(),
      sentAt: r.sent_at ? r.sent_at.toISOString() : null,
    })),
    nextCursor: rows.length > o.limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}
