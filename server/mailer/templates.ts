/**
 * The messages players get, as plain text and HTML, in the game's name (the project's name).
 * Codes are the only variable part besides the name: no links, games have no page to land on.
 * A code is rendered as CODE_MASK: the stored message never holds it; `withCode` puts it in the
 * copy that goes to the SMTP server (see ./index).
 */
export type Template = "password_reset" | "email_verification" | "code_guesses_locked";

export type Rendered = { subject: string; text: string; html: string };

/** What a stored message shows in place of its code. */
export const CODE_MASK = "••••••";

const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

const CODE_STYLE = "font-size:28px;font-weight:600;letter-spacing:6px;font-family:ui-monospace,monospace";
const codeLine = (code: string) => ({ text: `\n    ${code}\n`, html: `<p style="${CODE_STYLE}">${escapeHtml(code)}</p>` });

function page(paragraphs: string[]): string {
  return `<!doctype html><html><body style="font-family:system-ui,sans-serif;color:#18181b;line-height:1.5">
${paragraphs.join("\n")}
</body></html>`;
}

/** A template's message with its code masked (`until`: when a guess lock ends, for code_guesses_locked). */
export function render(template: Template, v: { game: string; minutes: number; until?: Date }): Rendered {
  if (template === "code_guesses_locked") {
    const until = `${(v.until ?? new Date()).toISOString().slice(0, 16).replace("T", " ")} UTC`;
    const lead = `Someone entered wrong codes for your ${v.game} account too many times, so codes are not accepted until ${until}.`;
    const recovery =
      "You can still go on now: enter this recovery code in the game instead of a code. It works once, for 7 days, even while codes are locked:";
    const after = `Or wait until ${until}, then ask for a new code. If it was not you, your account is safe: nobody can use a code without reading this mailbox.`;
    const line = codeLine(CODE_MASK);
    return {
      subject: `${v.game}: too many wrong codes`,
      text: `${lead}\n\n${recovery}\n${line.text}\n${after}\n`,
      html: page([`<p>${escapeHtml(lead)}</p>`, `<p>${escapeHtml(recovery)}</p>`, line.html, `<p>${escapeHtml(after)}</p>`]),
    };
  }
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
  const line = codeLine(CODE_MASK);
  const text = `${what.lead}\n${line.text}\n${validity}\n${what.after}\n`;
  const html = page([`<p>${escapeHtml(what.lead)}</p>`, line.html, `<p>${escapeHtml(validity)}<br>${escapeHtml(what.after)}</p>`]);
  return { subject: what.subject, text, html };
}

/** The copy for the SMTP server: the stored (masked) message with its code in place of the mask. */
export function withCode(m: { text: string; html: string }, code: string): { text: string; html: string } {
  const masked = codeLine(CODE_MASK);
  const clear = codeLine(code);
  return { text: m.text.replace(masked.text, clear.text), html: m.html.replace(masked.html, clear.html) };
}

/** A text with any code line masked: a guard for rows stored before codes were masked at rest. */
export function maskCodes(text: string): string {
  return text.replace(/(^|\n) {4}\d{6}(?=\s*(\n|$))/g, `$1    ${CODE_MASK}`);
}
