import { randomBytes } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedApp, startApp } from "../support/global-setup";
import { until } from "../support/launch.mjs";
import { appWithMailSink } from "../support/smtp-sink";

/**
 * Password reset and e-mail verification against a real SMTP server (smtp-server) this test
 * runs. The app has a database of its own: every app on one database is one queue cluster, and
 * the suite's shared app (no SMTP_URL) would take these jobs and keep them in its outbox.
 */
const mailed = appWithMailSink({
  dirPrefix: "gb-mail-",
  env: {
    CODE_REQUESTS_PER_ACCOUNT: "1000",
    CODE_REQUESTS_PER_IP: "1000",
    // The guesser and the owner share this test's address; the login budgets have tests of their own.
    LOGIN_FAILURES_PER_ACCOUNT_IP: "1000",
  },
});
const smtp = mailed.smtp;
const appEnv = mailed.env;
let app: StartedApp;
let apiKey: string;
let sql: pg.Pool;

beforeAll(async () => {
  const started = await mailed.start();
  ({ app, sql } = started);
  apiKey = started.demo.apiKey;
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await mailed.close();
});

async function call(method: string, p: string, o: { body?: unknown; token?: string } = {}) {
  const res = await fetch(`${app.baseUrl}/api/v1${p}`, {
    method,
    headers: {
      "X-API-Key": apiKey,
      ...(o.body !== undefined ? { "Content-Type": "application/json" } : {}),
      ...(o.token ? { Authorization: `Bearer ${o.token}` } : {}),
    },
    body: o.body !== undefined ? JSON.stringify(o.body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

const codeOf = (res: { body: Record<string, unknown> | null }) => (res.body?.error as { code?: string } | undefined)?.code;
/** Waits until the queue has no job left to run (created, waiting for a retry, or running). */
const jobsDone = (queue: string) =>
  until(`the ${queue} jobs to finish`, async () => {
    const { rows } = await sql.query("SELECT 1 FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active')", [queue]);
    return rows.length === 0;
  });
const newEmail = () => `p-${randomBytes(5).toString("hex")}@example.com`;
const PASSWORD = "correct horse battery";
type Session = { accessToken: string; refreshToken: string; playerId: string };

/** A registered player whose verification mail has arrived (its code returned, unused). */
async function register(email = newEmail()) {
  const since = smtp.mails.length;
  const res = await call("POST", "/auth/email/register", { body: { email, password: PASSWORD } });
  expect(res.status).toBe(200);
  // The mail with a code: a lock notice queued by an earlier step can still arrive after `since` on a busy machine.
  const mail = await smtp.next(email, since, (m) => m.code !== "");
  return { email, session: res.body as unknown as Session, verificationCode: mail.code };
}

async function verified(email = newEmail()) {
  const r = await register(email);
  expect((await call("POST", "/auth/email/verify", { token: r.session.accessToken, body: { code: r.verificationCode } })).status).toBe(200);
  return r;
}

async function resetCode(email: string): Promise<string> {
  const since = smtp.mails.length;
  const res = await call("POST", "/auth/email/password-reset", { body: { email } });
  expect([res.status, res.body]).toEqual([202, {}]);
  return (await smtp.next(email, since, (m) => m.code !== "")).code;
}

describe("e-mail verification", () => {
  it("registration mails a six-digit code in the game's name; verifying with it sets emailVerified", async () => {
    const { email, session, verificationCode } = await register();
    const mail = smtp.mails.find((m) => m.to === email);
    expect(mail?.subject).toBe("Demo Game: confirm your e-mail address");
    expect(verificationCode).toMatch(/^\d{6}$/);
    const before = await call("GET", `/players/${session.playerId}`, { token: session.accessToken });
    expect(before.body).toMatchObject({ hasEmail: true, emailVerified: false });
    const res = await call("POST", "/auth/email/verify", { token: session.accessToken, body: { code: verificationCode } });
    expect([res.status, res.body?.emailVerified]).toEqual([200, true]);
  });

  it("the player's export lists the mail sent to them and when the address was verified, never a code", async () => {
    const { session, verificationCode } = await verified();
    const res = await call("GET", "/players/me/export", { token: session.accessToken });
    expect(res.status).toBe(200);
    const doc = res.body as { profile: { emailVerifiedAt: string | null }; emails: Array<Record<string, unknown>> };
    expect(doc.profile.emailVerifiedAt).toEqual(expect.any(String));
    expect(doc.emails).toEqual([expect.objectContaining({ template: "email_verification", to: expect.stringContaining("@example.com") })]);
    expect(JSON.stringify(doc)).not.toContain(verificationCode);
  });

  it("a wrong code is 401 INVALID_CODE and leaves the address unverified", async () => {
    const { session, verificationCode } = await register();
    const wrong = verificationCode === "000000" ? "000001" : "000000";
    const res = await call("POST", "/auth/email/verify", { token: session.accessToken, body: { code: wrong } });
    expect([res.status, codeOf(res)]).toEqual([401, "INVALID_CODE"]);
    const profile = await call("GET", `/players/${session.playerId}`, { token: session.accessToken });
    expect(profile.body?.emailVerified).toBe(false);
  });

  it("resend answers 202 {} and mails a new code that replaces the old one", async () => {
    const { email, session, verificationCode: old } = await register();
    const since = smtp.mails.length;
    expect(await call("POST", "/auth/email/verify/resend", { token: session.accessToken })).toEqual({ status: 202, body: {} });
    const fresh = (await smtp.next(email, since)).code;
    if (old !== fresh) {
      const stale = await call("POST", "/auth/email/verify", { token: session.accessToken, body: { code: old } });
      expect(stale.status).toBe(401);
    }
    expect((await call("POST", "/auth/email/verify", { token: session.accessToken, body: { code: fresh } })).status).toBe(200);
  });

  it("a project that requires verification refuses an unverified e-mail login with 403 EMAIL_NOT_VERIFIED, and signs it in once verified", async () => {
    const { email, session, verificationCode } = await register();
    const { rows } = await sql.query<{ project_id: string }>("SELECT project_id FROM players WHERE id = $1", [session.playerId]);
    await sql.query("UPDATE projects SET require_verified_email = true WHERE id = $1", [rows[0]?.project_id]);
    try {
      const refused = await call("POST", "/auth/email/login", { body: { email, password: PASSWORD } });
      expect([refused.status, codeOf(refused)]).toEqual([403, "EMAIL_NOT_VERIFIED"]);
      await call("POST", "/auth/email/verify", { token: session.accessToken, body: { code: verificationCode } });
      expect((await call("POST", "/auth/email/login", { body: { email, password: PASSWORD } })).status).toBe(200);
    } finally {
      await sql.query("UPDATE projects SET require_verified_email = false WHERE id = $1", [rows[0]?.project_id]);
    }
  });
});

describe("password reset", () => {
  it("the mailed code sets a new password, signs the player in and ends every other session", async () => {
    const { email, session } = await verified();
    const code = await resetCode(email);
    const res = await call("POST", "/auth/email/password-reset/confirm", { body: { email, code, password: "a brand new secret" } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ playerId: session.playerId, accessToken: expect.any(String) });
    expect((await call("GET", `/players/${session.playerId}`, { token: session.accessToken })).status).toBe(401);
    expect((await call("POST", "/auth/refresh", { body: { refreshToken: session.refreshToken } })).status).toBe(401);
    expect((await call("POST", "/auth/email/login", { body: { email, password: PASSWORD } })).status).toBe(401);
    expect((await call("POST", "/auth/email/login", { body: { email, password: "a brand new secret" } })).status).toBe(200);
  });

  it("a used code is refused the second time", async () => {
    const { email } = await verified();
    const code = await resetCode(email);
    expect((await call("POST", "/auth/email/password-reset/confirm", { body: { email, code, password: "first new secret" } })).status).toBe(
      200,
    );
    const again = await call("POST", "/auth/email/password-reset/confirm", { body: { email, code, password: "second new secret" } });
    expect([again.status, codeOf(again)]).toEqual([401, "INVALID_CODE"]);
  });

  it("an expired code is refused", async () => {
    const { email, session } = await verified();
    const code = await resetCode(email);
    await sql.query(
      "UPDATE player_codes SET expires_at = now() - interval '1 second' WHERE player_id = $1 AND purpose = 'PASSWORD_RESET'",
      [session.playerId],
    );
    const res = await call("POST", "/auth/email/password-reset/confirm", { body: { email, code, password: "too late secret" } });
    expect(res.status).toBe(401);
  });

  it("after 5 wrong tries the right code is dead", async () => {
    const { email } = await verified();
    const code = await resetCode(email);
    const wrong = code === "000000" ? "000001" : "000000";
    for (let i = 0; i < 5; i++) {
      expect(
        (await call("POST", "/auth/email/password-reset/confirm", { body: { email, code: wrong, password: "guess guess guess" } })).status,
      ).toBe(401);
    }
    const right = await call("POST", "/auth/email/password-reset/confirm", { body: { email, code, password: "guess guess guess" } });
    expect(right.status).toBe(401);
  });

  it("an unknown address gets the same 202 {} and no mail", async () => {
    const unknown = newEmail();
    const res = await call("POST", "/auth/email/password-reset", { body: { email: unknown } });
    expect([res.status, res.body]).toEqual([202, {}]);
    // A known address asked after it: once its mail is here, the unknown one's job has run too.
    const { email } = await verified();
    await resetCode(email);
    await jobsDone("account-email");
    expect(smtp.mails.filter((m) => m.to === unknown)).toEqual([]);
  });

  /** Asks a reset for `email` and, once a known address's code has come (so this job has run too), finds no mail to it. */
  async function expectNoResetMail(email: string) {
    const since = smtp.mails.length;
    expect((await call("POST", "/auth/email/password-reset", { body: { email } })).status).toBe(202);
    const { email: other } = await verified();
    await resetCode(other);
    await jobsDone("account-email");
    expect(smtp.mails.slice(since).filter((m) => m.to === email)).toEqual([]);
  }

  it("a player whose timed ban has ended gets a reset code and resets the password", async () => {
    const { email, session } = await verified();
    await sql.query("UPDATE players SET banned_at = now() - interval '2 days', banned_until = now() - interval '1 day' WHERE id = $1", [
      session.playerId,
    ]);
    const code = await resetCode(email);
    const res = await call("POST", "/auth/email/password-reset/confirm", { body: { email, code, password: "after the ban ended" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it("a player banned now gets no reset code", async () => {
    const { email, session } = await verified();
    await sql.query("UPDATE players SET banned_at = now(), banned_until = now() + interval '1 day' WHERE id = $1", [session.playerId]);
    await expectNoResetMail(email);
  });

  it("an unverified address gets no reset code by default", async () => {
    const { email } = await register();
    await expectNoResetMail(email);
  });

  it("answers a reset request without reading the players table (answered while it is locked), so known and unknown addresses do the same work", async () => {
    // The mechanism behind "same answer, same time": the request only counts and enqueues; the
    // account is looked up by the job. Timing both paths was noise on a busy machine.
    const { email: known } = await verified();
    const lock = await sql.connect();
    try {
      await lock.query("BEGIN");
      await lock.query("LOCK TABLE players IN ACCESS EXCLUSIVE MODE");
      const blocked = new Promise<"blocked">((resolve) => setTimeout(() => resolve("blocked"), 20_000).unref());
      const answers = await Promise.all(
        [known, newEmail()].map((email) => Promise.race([call("POST", "/auth/email/password-reset", { body: { email } }), blocked])),
      );
      expect(answers.map((a) => (a === "blocked" ? a : [a.status, a.body]))).toEqual([
        [202, {}],
        [202, {}],
      ]);
    } finally {
      await lock.query("ROLLBACK");
      lock.release();
    }
  });
});

describe("delivery", () => {
  it("with the SMTP server down the API still answers; the message is retried and delivered when it returns", async () => {
    await smtp.close();
    const email = newEmail();
    const res = await call("POST", "/auth/email/register", { body: { email, password: PASSWORD } });
    expect(res.status).toBe(200);
    const failed = await until("a failed attempt recorded", async () => {
      const { rows } = await sql.query<{ attempts: number; last_error: string }>(
        "SELECT attempts, last_error FROM email_messages WHERE to_address = $1 AND attempts > 0",
        [email],
      );
      return rows[0];
    });
    expect(failed.last_error).toMatch(/ECONNREFUSED|ECONNECTION/);
    await smtp.listen();
    const mail = await smtp.next(email);
    expect(mail.code).toMatch(/^\d{6}$/);
    // Marked sent once the server's "250 OK" is back, a moment after the mail arrived there.
    await until("the message marked sent", async () => {
      const { rows } = await sql.query<{ status: string }>("SELECT status FROM email_messages WHERE to_address = $1", [email]);
      return rows.length === 1 && rows[0]?.status === "SENT";
    });
  });

  it("a message queued when the app is killed (kill -9) is delivered after the restart, once", async () => {
    await smtp.close();
    const email = newEmail();
    expect((await call("POST", "/auth/email/register", { body: { email, password: PASSWORD } })).status).toBe(200);
    app.child.kill("SIGKILL");
    await app.exited;
    await smtp.listen();
    app = await startApp(appEnv());
    await smtp.next(email);
    await jobsDone("email-delivery");
    expect(smtp.mails.filter((m) => m.to === email)).toHaveLength(1);
  }, 180_000);

  it("a message being sent when the app is told to stop (SIGTERM) is finished and marked sent before the app exits", async () => {
    smtp.state.delayMs = 1_500;
    try {
      const email = newEmail();
      expect((await call("POST", "/auth/email/register", { body: { email, password: PASSWORD } })).status).toBe(200);
      // This player's message, not a retry of an earlier test's that the queue happened to send first.
      await until("the SMTP server receiving the message", () => smtp.state.receivingFor.includes(email), 20_000);
      const stopped = app.stop();
      expect(await stopped).toBe(0);
      expect(smtp.mails.filter((m) => m.to === email)).toHaveLength(1);
      const { rows } = await sql.query<{ status: string; attempts: number }>(
        "SELECT status, attempts FROM email_messages WHERE to_address = $1",
        [email],
      );
      expect(rows).toEqual([{ status: "SENT", attempts: 1 }]);
    } finally {
      smtp.state.delayMs = 0;
      app = await startApp(appEnv());
    }
  }, 180_000);
});

describe("codes at rest", () => {
  it("the stored message holds the code masked while the mail the SMTP server got has it; the sealed code is wiped once sent", async () => {
    const { email, verificationCode } = await register();
    expect(verificationCode).toMatch(/^\d{6}$/);
    const row = await until("the message marked sent", async () => {
      const { rows } = await sql.query<{ status: string; text: string; html: string; code_sealed: string | null }>(
        "SELECT status, text, html, code_sealed FROM email_messages WHERE to_address = $1",
        [email],
      );
      return rows[0]?.status === "SENT" ? rows[0] : undefined;
    });
    expect(row.text).toContain("\n    ••••••\n");
    expect(row.html).toContain(">••••••</p>");
    expect(`${row.text}${row.html}`).not.toContain(verificationCode);
    expect(row.code_sealed).toBeNull();
  });
});

/** `count` wrong verification guesses (never `live`, the code in the mailbox), each answered 401. */
async function wrongGuesses(token: string, live: string, count: number) {
  const wrong = live === "000000" ? "000001" : "000000";
  for (let i = 0; i < count; i++) {
    const res = await call("POST", "/auth/email/verify", { token, body: { code: wrong } });
    expect([res.status, codeOf(res)]).toEqual([401, "INVALID_CODE"]);
  }
}

/** A new verification code, from the next mail to `email` that has one (a lock notice has none). */
async function resend(email: string, token: string): Promise<string> {
  const since = smtp.mails.length;
  expect((await call("POST", "/auth/email/verify/resend", { token })).status).toBe(202);
  const mail = await until(`a code mail to ${email}`, () => smtp.mails.slice(since).find((m) => m.to === email && m.code !== ""), 60_000);
  return mail.code;
}

describe("wrong code guesses", () => {
  it("Medium: wrong guesses across new codes are capped: after 10, even the right new code is refused until the back-off ends", async () => {
    const { email, session, verificationCode } = await register();
    await wrongGuesses(session.accessToken, verificationCode, 5);
    const second = await resend(email, session.accessToken);
    const since = smtp.mails.length;
    await wrongGuesses(session.accessToken, second, 5);
    const third = await resend(email, session.accessToken);
    const locked = await call("POST", "/auth/email/verify", { token: session.accessToken, body: { code: third } });
    expect([locked.status, codeOf(locked)]).toEqual([401, "INVALID_CODE"]);
    // The owner is told, with the time the back-off ends.
    const notice = await until("the lock notice", () =>
      smtp.mails.slice(since).find((m) => m.to === email && /too many wrong codes/.test(m.subject)),
    );
    expect(notice.raw).toMatch(/wait until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    // Once the back-off has passed, a new code from the mailbox works (the lock stops guesses, not the owner).
    await sql.query("UPDATE code_guesses SET locked_until = now() - interval '1 second' WHERE address = $1", [email]);
    const fourth = await resend(email, session.accessToken);
    const ok = await call("POST", "/auth/email/verify", { token: session.accessToken, body: { code: fourth } });
    expect([ok.status, ok.body?.emailVerified]).toEqual([200, true]);
    const { rows } = await sql.query("SELECT 1 FROM code_guesses WHERE address = $1", [email]);
    expect(rows).toEqual([]);
  });

  it("Medium: while guesses are locked, the owner resets the password with the recovery code from the lock mail, also after a new six-digit code was requested", async () => {
    const { email } = await verified();
    const wrongResets = async (live: string) => {
      const wrong = live === "000000" ? "000001" : "000000";
      for (let i = 0; i < 5; i++) {
        const res = await call("POST", "/auth/email/password-reset/confirm", {
          body: { email, code: wrong, password: "guess guess guess" },
        });
        expect([res.status, codeOf(res)]).toEqual([401, "INVALID_CODE"]);
      }
    };
    await wrongResets(await resetCode(email));
    const since = smtp.mails.length;
    await wrongResets(await resetCode(email));
    const notice = await until("the lock notice", () =>
      smtp.mails.slice(since).find((m) => m.to === email && /too many wrong codes/.test(m.subject)),
    );
    expect(notice.recovery).toMatch(/^[0-9A-Z]{4}(-[0-9A-Z]{4}){3}$/);
    // Anyone may ask for a new code during the lock: it does not replace the recovery code.
    await resetCode(email);
    const body = { email, code: notice.recovery.toLowerCase(), password: "recovered passphrase" };
    const res = await call("POST", "/auth/email/password-reset/confirm", { body });
    expect(res.status).toBe(200);
    const again = await call("POST", "/auth/email/password-reset/confirm", { body: { ...body, password: "second passphrase" } });
    expect([again.status, codeOf(again)]).toEqual([401, "INVALID_CODE"]);
    const { rows } = await sql.query("SELECT 1 FROM code_guesses WHERE address = $1", [email]);
    expect(rows).toEqual([]);
    const login = await call("POST", "/auth/email/login", { body: { email, password: "recovered passphrase" } });
    expect(login.status).toBe(200);
  });

  it("the back-off doubles each time the cap trips", async () => {
    const { email, session, verificationCode } = await register();
    await wrongGuesses(session.accessToken, verificationCode, 5);
    await wrongGuesses(session.accessToken, await resend(email, session.accessToken), 5);
    const first = await sql.query<{ s: number }>(
      "SELECT extract(epoch FROM locked_until - updated_at)::int AS s FROM code_guesses WHERE address = $1",
      [email],
    );
    await sql.query("UPDATE code_guesses SET locked_until = now() - interval '1 second' WHERE address = $1", [email]);
    await wrongGuesses(session.accessToken, await resend(email, session.accessToken), 5);
    await wrongGuesses(session.accessToken, await resend(email, session.accessToken), 5);
    const second = await sql.query<{ s: number; trips: number }>(
      "SELECT extract(epoch FROM locked_until - updated_at)::int AS s, trips FROM code_guesses WHERE address = $1",
      [email],
    );
    expect([first.rows[0]?.s, second.rows[0]?.s, second.rows[0]?.trips]).toEqual([900, 1800, 2]);
  });

  it("L6: wrong guesses stay counted when the account is deleted and the address registers again", async () => {
    const { email, session, verificationCode } = await register();
    await wrongGuesses(session.accessToken, verificationCode, 5);
    await wrongGuesses(session.accessToken, await resend(email, session.accessToken), 5);
    const deleted = await call("DELETE", "/players/me", { token: session.accessToken, body: { password: PASSWORD } });
    expect(deleted.status).toBe(204);
    const again = await register(email);
    const res = await call("POST", "/auth/email/verify", { token: again.session.accessToken, body: { code: again.verificationCode } });
    expect([res.status, codeOf(res)]).toEqual([401, "INVALID_CODE"]);
  });
});

describe("mail per recipient", () => {
  it("L6: one address gets at most EMAIL_PER_RECIPIENT_PER_HOUR (10) messages an hour; more are not queued and the answer stays 202", async () => {
    const { email, session } = await register();
    for (let i = 0; i < 9; i++) expect((await call("POST", "/auth/email/verify/resend", { token: session.accessToken })).status).toBe(202);
    const over = await call("POST", "/auth/email/verify/resend", { token: session.accessToken });
    expect([over.status, over.body]).toEqual([202, {}]);
    const { rows } = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM email_messages WHERE to_address = $1", [email]);
    expect(rows[0]?.n).toBe(10);
  });
});
