import { prisma } from "../db";
import { env } from "../env";
import { logger } from "../log";
import { enqueue, handle, QUEUES } from "../queue";
import { smtp, smtpAnswer } from "./index";
import { openCode, sealCode } from "./seal";

/**
 * The instance's mail to operators: a project invite. Unlike players' mail (./index) nothing is
 * stored in email_messages, so no project's e-mail log (which project members read) ever holds
 * the link. The job carries the invite's token sealed (./seal, bound to the invite id); the link
 * exists in clear only in the copy handed to the SMTP server. An invite used, revoked or expired
 * before delivery is not mailed. Without SMTP_URL nothing is queued: the owner gets the link only.
 */
type InviteMailJob = { inviteId: string; sealedToken: string; invitedBy: string };

export const operatorMailConfigured = (): boolean => Boolean(env().SMTP_URL);

/** Queues the invite's mail (inside the caller's transaction); false when this instance has no SMTP server. */
export async function queueInviteEmail(o: { inviteId: string; token: string; invitedBy: string }): Promise<boolean> {
  if (!operatorMailConfigured()) return false;
  const job: InviteMailJob = { inviteId: o.inviteId, sealedToken: sealCode(o.inviteId, o.token), invitedBy: o.invitedBy };
  await enqueue(QUEUES.operatorEmail, job, {
    retryLimit: env().EMAIL_RETRY_LIMIT,
    retryDelay: env().EMAIL_RETRY_DELAY_SECONDS,
    retryBackoff: true,
    expireInSeconds: 60,
  });
  return true;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

/** The invite's message (the link in clear: only for the SMTP server). */
export function renderInvite(v: { project: string; role: string; invitedBy: string; link: string; expiresAt: Date }) {
  const until = `${v.expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const lead = `${v.invitedBy} invited you to the project ${v.project} as ${v.role.toLowerCase()}.`;
  const how = "Open this link to choose your name and password and join:";
  const after = `The link works once, until ${until}. If you did not expect this invite, ignore this e-mail.`;
  return {
    subject: `Invite to ${v.project}`,
    text: `${lead}\n${how}\n\n${v.link}\n\n${after}\n`,
    html: `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#18181b;line-height:1.5">
<p>${escapeHtml(lead)}</p>
<p>${escapeHtml(how)}</p>
<p><a href="${escapeHtml(v.link)}">${escapeHtml(v.link)}</a></p>
<p>${escapeHtml(after)}</p>
</body></html>`,
  };
}

/** One delivery attempt (the operator-email queue's handler). Throws to be retried. */
export async function deliverInvite(job: InviteMailJob): Promise<void> {
  const invite = await prisma().invite.findUnique({
    where: { id: job.inviteId },
    select: { email: true, role: true, acceptedAt: true, expiresAt: true, project: { select: { name: true } } },
  });
  const url = env().SMTP_URL;
  if (!invite || invite.acceptedAt || invite.expiresAt <= new Date() || !url) return;
  const token = openCode(job.inviteId, job.sealedToken);
  if (!token) return;
  const base = (env().PUBLIC_URL ?? `http://localhost:${env().PORT}`).replace(/\/+$/, "");
  const message = renderInvite({
    project: invite.project.name,
    role: invite.role,
    invitedBy: job.invitedBy,
    link: `${base}/invite/${token}`,
    expiresAt: invite.expiresAt,
  });
  try {
    await smtp(url).sendMail({ from: env().EMAIL_FROM, to: invite.email, ...message });
  } catch (error) {
    logger("email").warn({ inviteId: job.inviteId, reason: smtpAnswer(error) }, "invite delivery failed");
    throw new Error(smtpAnswer(error));
  }
}

export function registerOperatorEmail(): void {
  handle(QUEUES.operatorEmail, (data) => deliverInvite(data as InviteMailJob));
}
