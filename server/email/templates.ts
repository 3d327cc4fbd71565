/**
 * The messages players get, as plain text and HTML, in the game's name (the project's name).
 * Codes are the only variable part besides the name: no links, games have no page to land on.
 */
export type Template = "password_reset" | "email_verification";

export type Rendered = { subject: string; text: string; html: string };

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

export function render(template: Template, v: { game: string; code: string; minutes: number }): Rendered {
  const what =
    template === "password_reset"
      ? {
          subject: `${v.game}: your password reset code`,
          lead: `Someone asked to reset the password of your ${v.game} account. Enter this code in the game to choose a new password:`,
          after: "If this was not you, ignore this e-mail: your password stays as it is.",
        }
      : {
          subject: `${v.game}: confirm your e-mail address`,
          lead: `Enter this code in ${v.game} to confirm that this is your e-mail address:`,
          after: "If you did not sign up, ignore this e-mail.",
        };
  const validity = `The code works once, for ${v.minutes} minutes.`;
  const text = `${what.lead}\n\n    ${v.code}\n\n${validity}\n${what.after}\n`;
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#18181b;line-height:1.5">
<p>${escapeHtml(what.lead)}</p>
<p style="font-size:28px;font-weight:600;letter-spacing:6px;font-family:ui-monospace,monospace">${escapeHtml(v.code)}</p>
<p>${escapeHtml(validity)}<br>${escapeHtml(what.after)}</p>
</body></html>`;
  return { subject: what.subject, text, html };
}
