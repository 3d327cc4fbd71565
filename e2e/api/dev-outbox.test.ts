import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { createDatabase } from "../support/global-setup";
import { launchApp, type StartedApp, until } from "../support/launch.mjs";

/**
 * `npm run dev` without SMTP_URL: a message kept in the outbox is also printed, with its text, so
 * a developer reads the code in the terminal. Production prints no bodies (codes stay out of logs).
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

it("prints a verification mail kept in the outbox with its code, the same code the outbox holds", async () => {
  const { apiKey } = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8")) as { apiKey: string };
  const email = `dev-${Date.now()}@example.com`;
  const res = await fetch(`${app.baseUrl}/api/v1/auth/email/register`, {
    method: "POST",
    headers: { "X-API-Key": apiKey, "Content-Type": "application/json" },
    body: JSON.stringify({ email, password: "a long dev passphrase" }),
  });
  expect(res.status).toBe(200);
  const printed = await until(
    "the outbox line",
    () => /not sent \(no SMTP_URL\), kept in the outbox:\n[^\n]*\n\n {4}(\d{6})\n/.exec(app.output())?.[1],
    60_000,
  );
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  try {
    const { rows } = await sql.query<{ status: string; text: string }>("SELECT status, text FROM email_messages WHERE to_address = $1", [
      email,
    ]);
    expect(rows.map((r) => r.status)).toEqual(["OUTBOX"]);
    expect(rows[0]?.text).toContain(`    ${printed}\n`);
  } finally {
    await sql.end();
  }
}, 120_000);
