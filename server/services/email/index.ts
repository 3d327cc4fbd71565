import { pool, prisma } from "../../db";
import { env } from "../../env";
import { AppError } from "../../errors";
import { authorize, type OperatorContext, runCommand } from "../command";
import type { EmailSettingsInput } from "./schemas";

/** A project's e-mail settings, and the defaults an empty sender falls back to. */
export type EmailSettings = EmailSettingsInput & {
  /** What messages are sent from when the sender name or address is empty: the project's name, EMAIL_FROM. */
  defaults: { fromName: string; fromAddress: string };
};

const settingsSelect = {
  name: true,
  emailFromName: true,
  emailFromAddress: true,
  requireVerifiedEmail: true,
  resetUnverifiedEmail: true,
} as const;

function toSettings(p: {
  name: string;
  emailFromName: string | null;
  emailFromAddress: string | null;
  requireVerifiedEmail: boolean;
  resetUnverifiedEmail: boolean;
}): EmailSettings {
  return {
    fromName: p.emailFromName,
    fromAddress: p.emailFromAddress,
    requireVerifiedEmail: p.requireVerifiedEmail,
    resetUnverifiedEmail: p.resetUnverifiedEmail,
    defaults: { fromName: p.name, fromAddress: env().EMAIL_FROM },
  };
}

async function readEmailSettings(projectId: string): Promise<EmailSettings> {
  const p = await prisma().project.findUnique({ where: { id: projectId }, select: settingsSelect });
  if (!p) throw new AppError("NOT_FOUND", { message: "Project not found." });
  return toSettings(p);
}

export async function getEmailSettingsAs(ctx: OperatorContext, o: { projectId: string }): Promise<EmailSettings> {
  await authorize(ctx, o.projectId, "VIEWER");
  return readEmailSettings(o.projectId);
}

const settingsOf = ({ defaults: _, ...settings }: EmailSettings): EmailSettingsInput => settings;

/**
 * The sender players see (name and address; empty: the project's name and EMAIL_FROM) and the two
 * verification rules: whether e-mail sign-in needs a verified address, and whether reset codes go
 * to unverified ones. Admins; audited as `project.email-settings`. New messages use it at once.
 */
export function setEmailSettingsAs(ctx: OperatorContext, o: { projectId: string } & EmailSettingsInput): Promise<EmailSettings> {
  const { projectId, ...settings } = o;
  return runCommand(ctx, {
    projectId,
    minimum: "ADMIN",
    action: "project.email-settings",
    target: projectId,
    before: async () => settingsOf(await readEmailSettings(projectId)),
    run: async () =>
      toSettings(
        await prisma().project.update({
          where: { id: projectId },
          data: {
            emailFromName: settings.fromName,
            emailFromAddress: settings.fromAddress,
            requireVerifiedEmail: settings.requireVerifiedEmail,
            resetUnverifiedEmail: settings.resetUnverifiedEmail,
          },
          select: settingsSelect,
        }),
      ),
    after: settingsOf,
  });
}

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
