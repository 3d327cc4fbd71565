import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { createDatabase } from "../support/global-setup";
import { launchApp, type StartedApp, until } from "../support/launch.mjs";

/**
 * `npm run dev` without SMTP_URL: a message kept in the outbox is also printed, with its code
 * (opened from its sealed value at delivery), so a developer reads the code in the terminal. The
 * stored message holds the code masked, as everywhere; production prints no bodies.
 */
let db: Awaited<ReturnType<typeof createDatabase>>;
let dataDir: string;
let app: StartedApp;

beforeAll(async () => {
  db = await createDatabase();
  dataDir = mkdtempSync(path.join(tmpdir(), "gb-dev-"));
  app = await launchApp({
    args: ["--dev"],
    env: {
      DATABASE_URL: db.url,
      JWT_SECRET: inject("jwtSecret"),
      DATA_DIR: dataDir,
      SEED_DEMO: "true",
      SMTP_URL: "",
      QUEUE_POLL_SECONDS: "0.5",
    },
  });
}, 300_000);

afterAll(async () => {
  await app?.stop();
  await db?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

it("prints a verification mail kept in the outbox with its code, a code that works, while the stored message holds it masked", async () => {
  const { apiKey } = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8")) as { apiKey: string };
  const email = `dev-${Date.now()}@example.com`;
  const res = await fetch(`${app.baseUrl}/api/v1/auth/email/register`, {
    method: "POST",
    headers: { "X-API-Key": apiKey, "Content-Type": "application/json" },
    body: JSON.stringify({ email, password: "a long dev passphrase" }),
  });
  expect(res.status).toBe(200);
  const { accessToken } = (await res.json()) as { accessToken: string };
  const printed = await until(
    "the outbox line",
    () => /not sent \(no SMTP_URL\), kept in the outbox:\n[^\n]*\n\n {4}(\d{6})\n/.exec(app.output())?.[1],
    60_000,
  );
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  try {
    const { rows } = await sql.query<{ status: string; text: string; code_sealed: string | null }>(
      "SELECT status, text, code_sealed FROM email_messages WHERE to_address = $1",
      [email],
    );
    expect(rows.map((r) => [r.status, r.code_sealed])).toEqual([["OUTBOX", null]]);
    expect(rows[0]?.text).toContain("\n    ••••••\n");
    expect(rows[0]?.text).not.toContain(printed);
  } finally {
    await sql.end();
  }
  const verified = await fetch(`${app.baseUrl}/api/v1/auth/email/verify`, {
    method: "POST",
    headers: { "X-API-Key": apiKey, "Content-Type": "application/json", Authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ code: printed }),
  });
  expect(verified.status).toBe(200);
}, 120_000);
