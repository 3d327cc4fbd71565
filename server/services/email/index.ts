import { pool, prisma } from "../../db";
import { playerEmailFor } from "../../email-privacy";
import { env } from "../../env";
import { AppError } from "../../errors";
import type { MemberRole } from "../../generated/prisma/enums";
import { maskCodes } from "../../mailer/templates";
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

/** EMAIL_FROM_DOMAINS (empty: any): a project's sender must be at one of the instance's domains. */
function assertFromDomainAllowed(address: string | null): void {
  const allowed = env().EMAIL_FROM_DOMAINS;
  if (!address || allowed.length === 0) return;
  const domain = address.slice(address.lastIndexOf("@") + 1).toLowerCase();
  if (allowed.includes(domain)) return;
  throw new AppError("VALIDATION_ERROR", {
    message: `The sender address must be at ${allowed.length === 1 ? allowed[0] : `one of ${allowed.join(", ")}`} (this instance's EMAIL_FROM_DOMAINS).`,
  });
}

const settingsOf = ({ defaults: _, ...settings }: EmailSettings): EmailSettingsInput => settings;

/**
 * The sender players see (name and address; empty: the project's name and EMAIL_FROM) and the two
 * verification rules: whether e-mail sign-in needs a verified address, and whether reset codes go
 * to unverified ones. Admins; audited as `project.email-settings`. New messages use it at once.
 */
export function setEmailSettingsAs(ctx: OperatorContext, o: { projectId: string } & EmailSettingsInput): Promise<EmailSettings> {
  const { projectId, ...settings } = o;
  assertFromDomainAllowed(settings.fromAddress);
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

/** One message players were (or will be) sent, as operators see it: never a code, nor a body (see `openEmailAs`). */
export type EmailRow = {
  id: string;
  playerId: string | null;
  template: string;
  /** The recipient, masked (`j•••@example.com`) for roles that may not read players' addresses. */
  to: string;
  from: string;
  subject: string;
  status: "QUEUED" | "SENT" | "FAILED" | "OUTBOX";
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
};

type RawRow = {
  id: string;
  player_id: string | null;
  template: string;
  to_address: string;
  from_address: string;
  subject: string;
  status: EmailRow["status"];
  attempts: number;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
};

const ROW_COLUMNS = "id, player_id, template, to_address, from_address, subject, status, attempts, last_error, created_at, sent_at";

const toEmailRow = (role: MemberRole, r: RawRow): EmailRow => ({
  id: r.id,
  playerId: r.player_id,
  template: r.template,
  to: playerEmailFor(role, r.to_address) ?? "",
  from: r.from_address,
  subject: r.subject,
  status: r.status,
  attempts: r.attempts,
  lastError: r.last_error,
  createdAt: r.created_at.toISOString(),
  sentAt: r.sent_at ? r.sent_at.toISOString() : null,
});

/**
 * The project's e-mail, newest first, for any member: queued, sent, failed (with the SMTP
 * server's last answer) and, without SMTP_URL, the outbox. No bodies: a one-time code is no
 * operator's to read (stored messages hold it masked anyway), and the recipient follows the one
 * rule for players' addresses (`mayReadPlayerEmails`).
 */
export async function listEmailsAs(
  ctx: OperatorContext,
  o: { projectId: string; status?: EmailRow["status"]; cursor?: string; limit: number },
): Promise<{ smtpConfigured: boolean; messages: EmailRow[]; nextCursor: string | null }> {
  const actor = await authorize(ctx, o.projectId, "VIEWER");
  const { rows } = await pool().query<RawRow>(
    `SELECT ${ROW_COLUMNS}
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
    messages: page.map((r) => toEmailRow(actor.role, r)),
    nextCursor: rows.length > o.limit ? (page[page.length - 1]?.id ?? null) : null,
  };
}

/** One message with its text, as the player got it but with the code masked. */
export type EmailDetail = EmailRow & { text: string };

/**
 * Opens one message (its text, code masked) for any member; audited as `email.open` with the
 * message's id, so who read which player's mail is on record. Another project's message is
 * NOT_FOUND.
 */
export function openEmailAs(ctx: OperatorContext, o: { projectId: string; id: string }): Promise<EmailDetail> {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "VIEWER",
    action: "email.open",
    target: o.id,
    run: async (actor) => {
      const { rows } = await pool().query<RawRow & { text: string }>(
        `SELECT ${ROW_COLUMNS}, text FROM email_messages WHERE project_id = $1 AND id = $2::uuid`,
        [o.projectId, o.id],
      );
      const row = rows[0];
      if (!row) throw new AppError("NOT_FOUND", { message: "No such message." });
      return { ...toEmailRow(actor.role, row), text: maskCodes(row.text) };
    },
  });
}
