import nodemailer, { type Transporter } from "nodemailer";
import { uuidv7 } from "../crypto";
import { pool } from "../db";
import { maskEmail } from "../email-privacy";
import { env } from "../env";
import { logger } from "../log";
import { enqueue, handle, QUEUES } from "../queue";
import { openCode, sealCode } from "./seal";
import { render, type Template, withCode } from "./templates";

/**
 * Players' e-mail. A message is rendered and stored (email_messages) and its delivery is a job,
 * both inside the caller's transaction: the API call never waits for the mail server. Delivery
 * sends it over SMTP_URL with nodemailer and marks it sent; a refusal or an unreachable server
 * is recorded (attempts, the server's answer) and retried with growing delays (pg-boss backoff,
 * EMAIL_RETRY_DELAY_SECONDS doubling, EMAIL_RETRY_LIMIT times), then marked failed. Without
 * SMTP_URL nothing is sent and nothing dropped: the message is kept as OUTBOX for operators.
 *
 * A one-time code exists in clear only in the copy handed to the SMTP server: the stored text
 * and html show it masked, and the code itself waits sealed (./seal) until the message is SENT,
 * FAILED or OUTBOX, then the sealed value is wiped. Under `npm run dev` without SMTP_URL the
 * outbox message is printed with its code to the developer's terminal; production prints none.
 *
 * At most EMAIL_PER_RECIPIENT_PER_HOUR messages go to one address per project per hour: over it
 * the message is not stored nor sent (logged, with the address masked), and the caller answers
 * as it always does, so nobody learns whether an address has an account.
 */
export async function queueEmail(o: {
  projectId: string;
  playerId: string | null;
  template: Template;
  to: string;
  code?: string;
  until?: Date;
}): Promise<string | null> {
  const { rows } = await pool().query<{ name: string; from_name: string | null; from_address: string | null }>(
    "SELECT name, email_from_name AS from_name, email_from_address AS from_address FROM projects WHERE id = $1",
    [o.projectId],
  );
  const project = rows[0];
  if (!project) throw new Error(`project ${o.projectId} not found`);
  if (await overRecipientCap(o.projectId, o.to)) {
    logger("email").warn(
      { projectId: o.projectId, to: maskEmail(o.to), template: o.template },
      "not queued: recipient's hourly cap reached",
    );
    return null;
  }
  const message = render(o.template, { game: project.name, minutes: Math.round(env().CODE_TTL_SECONDS / 60), until: o.until });
  const from = formatFrom(project.from_name ?? project.name, project.from_address ?? env().EMAIL_FROM);
  const id = uuidv7();
  await pool().query(
    `INSERT INTO email_messages (id, project_id, player_id, template, to_address, from_address, subject, text, html, code_sealed)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      id,
      o.projectId,
      o.playerId,
      o.template,
      o.to,
      from,
      message.subject,
      message.text,
      message.html,
      o.code ? sealCode(id, o.code) : null,
    ],
  );
  await enqueue(
    QUEUES.emailDelivery,
    { messageId: id },
    { retryLimit: env().EMAIL_RETRY_LIMIT, retryDelay: env().EMAIL_RETRY_DELAY_SECONDS, retryBackoff: true, expireInSeconds: 60 },
  );
  return id;
}

/**
 * Whether `to` already got its hourly share of this project's messages. Counted from
 * email_messages (the (project, to_address, created_at) index) under a transaction-scoped lock
 * on the address, so parallel requests cannot all slip under the cap.
 */
async function overRecipientCap(projectId: string, to: string): Promise<boolean> {
  await pool().query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`email-recipient:${projectId}:${to.toLowerCase()}`]);
  const { rows } = await pool().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM email_messages
      WHERE project_id = $1 AND to_address = $2 AND created_at > now() - interval '1 hour'`,
    [projectId, to],
  );
  return (rows[0]?.n ?? 0) >= env().EMAIL_PER_RECIPIENT_PER_HOUR;
}

/** "Name <address>", the name quoted as RFC 5322 asks when it holds specials. */
function formatFrom(name: string, address: string): string {
  const clean = name.replace(/[\r\n]/g, " ").trim();
  return /^[\w !#$%&'*+\-/=?^`{|}~]*$/.test(clean) ? `${clean} <${address}>` : `"${clean.replace(/["\\]/g, "\\$&")}" <${address}>`;
}

let transport: Transporter | undefined;
export function smtp(url: string): Transporter {
  // Timeouts: a mail server that hangs must fail the attempt (and be retried), not hold the job.
  transport ??= nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  return transport;
}

type Row = {
  id: string;
  status: string;
  to_address: string;
  from_address: string;
  subject: string;
  text: string;
  html: string;
  code_sealed: string | null;
};

/** One delivery attempt of a message (the email-delivery queue's handler). Throws to be retried. */
export async function deliver(data: { messageId: string }, job: { retryCount: number; retryLimit: number }): Promise<void> {
  const { rows } = await pool().query<Row>(
    "SELECT id, status, to_address, from_address, subject, text, html, code_sealed FROM email_messages WHERE id = $1",
    [data.messageId],
  );
  const m = rows[0];
  // Sent already (a job retried after its message went out), or the player was deleted meanwhile.
  if (!m || m.status === "SENT" || m.status === "OUTBOX") return;
  const code = m.code_sealed ? openCode(m.id, m.code_sealed) : null;
  const body = code ? withCode(m, code) : { text: m.text, html: m.html };
  const url = env().SMTP_URL;
  if (!url) {
    await pool().query("UPDATE email_messages SET status = 'OUTBOX', code_sealed = NULL WHERE id = $1", [m.id]);
    // The developer's own terminal under `npm run dev`: the one place an unsent code is shown.
    if (process.env.NODE_ENV === "development") {
      logger("email").info({ to: m.to_address, subject: m.subject }, `not sent (no SMTP_URL), kept in the outbox:\n${body.text}`);
    }
    return;
  }
  try {
    await smtp(url).sendMail({ from: m.from_address, to: m.to_address, subject: m.subject, text: body.text, html: body.html });
  } catch (error) {
    const answer = smtpAnswer(error);
    const last = job.retryCount >= job.retryLimit;
    await pool().query(
      `UPDATE email_messages SET attempts = attempts + 1, last_error = $2, status = $3::"EmailStatus",
              code_sealed = CASE WHEN $4 THEN NULL ELSE code_sealed END
        WHERE id = $1`,
      [m.id, answer, last ? "FAILED" : "QUEUED", last],
    );
    logger("email").warn(
      { messageId: m.id, attempt: job.retryCount + 1, reason: answer },
      last ? "delivery failed, giving up" : "delivery failed, will retry",
    );
    throw new Error(answer);
  }
  await pool().query(
    "UPDATE email_messages SET attempts = attempts + 1, status = 'SENT', sent_at = now(), last_error = NULL, code_sealed = NULL WHERE id = $1",
    [m.id],
  );
}

/** The SMTP server's answer ("550 5.1.1 mailbox unavailable"), or why there was none. */
export function smtpAnswer(error: unknown): string {
  const e = error as { response?: string; code?: string; message?: string };
  return (e.response ?? (e.code ? `${e.code}: ${e.message}` : e.message) ?? String(error)).slice(0, 500);
}

export function registerEmailDelivery(): void {
  handle(QUEUES.emailDelivery, (data, job) => deliver(data as { messageId: string }, job));
}
