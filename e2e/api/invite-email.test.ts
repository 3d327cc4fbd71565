import { randomBytes } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StartedApp } from "../support/global-setup";
import { operatorSignIn } from "../support/operator-sign-in";
import { appWithMailSink } from "../support/smtp-sink";

/**
 * Project invites go out as the instance's mail to operators, over a real SMTP server this test
 * runs, and the link never lands in a project's e-mail log or any other operator read. The app
 * has a database of its own (a queue cluster of its own: the suite's shared app has no SMTP_URL).
 */
const mailed = appWithMailSink({ dirPrefix: "gb-invite-" });
const smtp = mailed.smtp;
let app: StartedApp;
let sql: pg.Pool;
let cookie: string;
let projectId: string;

beforeAll(async () => {
  const started = await mailed.start();
  ({ app, sql } = started);
  const demo = started.demo;
  const { rows } = await sql.query<{ id: string }>("SELECT id FROM projects WHERE name = 'Demo Game'");
  projectId = rows[0]?.id ?? "";
  cookie = (await operatorSignIn(app.baseUrl, { email: demo.operatorEmail, password: demo.operatorPassword })).session ?? "";
}, 180_000);

afterAll(async () => {
  await app?.stop();
  await mailed.close();
});

/** A dashboard call over HTTP with the owner's session cookie, as the browser makes it; the answer's text and data. */
async function trpc(procedure: string, input: object, method: "GET" | "POST" = "GET") {
  const query = method === "GET" ? `?input=${encodeURIComponent(JSON.stringify(input))}` : "";
  const res = await fetch(`${app.baseUrl}/api/trpc/${procedure}${query}`, {
    method,
    headers: { Cookie: cookie, "Sec-Fetch-Site": "same-origin", ...(method === "POST" ? { "Content-Type": "application/json" } : {}) },
    body: method === "POST" ? JSON.stringify(input) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, data: (JSON.parse(text) as { result?: { data?: unknown } }).result?.data };
}

/** The message body as sent (quoted-printable soft breaks joined, `=3D` decoded). */
const decoded = (raw: string) => raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");

describe("invites are e-mailed through the instance's operator mail", () => {
  it("the invitee gets a mail with a link that works once; the owner's answer says it was e-mailed and holds the same link", async () => {
    expect(cookie).not.toBe("");
    const email = `new-${randomBytes(4).toString("hex")}@studio.test`;
    const since = smtp.mails.length;
    const added = await trpc("members.add", { projectId, email, role: "ADMIN" }, "POST");
    expect(added.status).toBe(200);
    const answer = added.data as { invitePath: string; emailed: boolean };
    expect(answer.emailed).toBe(true);
    const mail = await smtp.next(email, since);
    expect(mail.subject).toBe("Invite to Demo Game");
    const body = decoded(mail.raw);
    expect(body).toContain("admin@demo.local");
    expect(body).toContain("as admin");
    const link = /https?:\/\/\S+\/invite\/([A-Za-z0-9_-]{43})\b/.exec(body);
    expect(link?.[1]).toBeDefined();
    const token = link?.[1] ?? "";
    expect(answer.invitePath).toBe(`/invite/${token}`);

    const page = await fetch(`${app.baseUrl}/invite/${token}`);
    expect(page.status).toBe(200);
    const info = await trpc("members.invite", { token });
    expect([info.status, info.data]).toEqual([200, { email, project: "Demo Game", role: "ADMIN" }]);
    const accepted = await trpc("members.accept", { token, name: "New Admin", password: "a long unusual passphrase 12" }, "POST");
    expect(accepted.status).toBe(200);
    expect((await trpc("members.accept", { token, name: "Again", password: "a long unusual passphrase 12" }, "POST")).status).toBe(404);
  });

  it("the link is in no project e-mail log, audit entry, member list or any table of the database, only sealed in the queued job", async () => {
    const email = `quiet-${randomBytes(4).toString("hex")}@studio.test`;
    const since = smtp.mails.length;
    const added = await trpc("members.add", { projectId, email, role: "VIEWER" }, "POST");
    const token = (added.data as { invitePath: string }).invitePath.split("/invite/")[1] ?? "";
    expect(token).toHaveLength(43);
    await smtp.next(email, since);

    const reads = [
      await trpc("email.list", { projectId }),
      await trpc("audit.list", { projectId }),
      await trpc("members.list", { projectId }),
    ];
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(token);
    }
    expect(reads[0]?.text).not.toContain(email);
    expect(reads[2]?.text).toContain(email);
    const { rows: messages } = await sql.query("SELECT 1 FROM email_messages WHERE to_address = $1", [email]);
    expect(messages).toEqual([]);

    const { rows: tables } = await sql.query<{ schema: string; name: string }>(
      "SELECT table_schema AS schema, table_name AS name FROM information_schema.tables WHERE table_schema IN ('public', 'pgboss') AND table_type = 'BASE TABLE'",
    );
    for (const t of tables) {
      const { rows } = await sql.query(`SELECT 1 FROM "${t.schema}"."${t.name}" AS r WHERE r::text LIKE '%' || $1 || '%' LIMIT 1`, [token]);
      expect(rows, `${t.schema}.${t.name}`).toEqual([]);
    }
  });
});
