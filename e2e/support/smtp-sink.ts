import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { SMTPServer } from "smtp-server";
import { inject } from "vitest";
import type { DemoFile } from "@/server/demo-seed";
import { createDatabase, type StartedApp, startApp } from "./global-setup";
import { until } from "./launch.mjs";

/**
 * A real SMTP server (smtp-server) on loopback that keeps every message it receives: the tests'
 * mailbox. `code` and `recovery` are the six-digit code and recovery code lines of players' mail.
 */
export type Mail = { to: string; subject: string; raw: string; code: string; recovery: string };

export function smtpServer() {
  const mails: Mail[] = [];
  let server: SMTPServer | null = null;
  let port = 0;
  /** How long the server holds a message before its "250 OK" (a slow server), and whom the messages it has begun to receive are for. */
  const state = { delayMs: 0, receivingFor: [] as string[] };
  const listen = () =>
    new Promise<void>((resolve) => {
      server = new SMTPServer({
        authOptional: true,
        disabledCommands: ["STARTTLS"],
        onData(stream, session, callback) {
          state.receivingFor.push(session.envelope.rcptTo.map((r) => r.address).join(","));
          let raw = "";
          stream.on("data", (chunk: Buffer) => {
            raw += chunk.toString("utf8");
          });
          stream.on("end", () => {
            const subject = /^Subject: (.*)$/m.exec(raw)?.[1] ?? "";
            const code = /^ {4}(\d{6})\s*$/m.exec(raw)?.[1] ?? "";
            const recovery = /^ {4}([0-9A-Z]{4}(?:-[0-9A-Z]{4}){3})\s*$/m.exec(raw)?.[1] ?? "";
            setTimeout(() => {
              mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(","), subject, raw, code, recovery });
              callback();
            }, state.delayMs);
          });
        },
      });
      server.listen(port, "127.0.0.1", () => {
        port = ((server as SMTPServer).server.address() as AddressInfo).port;
        resolve();
      });
    });
  return {
    mails,
    state,
    listen,
    port: () => port,
    close: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
    /**
     * The first mail to `to` after `since` mails that `is` accepts, waiting for it (up to a minute:
     * it goes through the job queue, slow on a busy machine, and costs nothing when it comes).
     */
    next: (to: string, since = 0, is: (m: Mail) => boolean = () => true) =>
      until(`a mail to ${to}`, () => mails.slice(since).find((m) => m.to === to && is(m)), 60_000),
  };
}

/**
 * An app of its own that sends its mail to a sink this test runs: a database of its own (every
 * app on one database is one queue cluster, and the suite's shared app, which has no SMTP_URL,
 * would take the mail jobs), a data directory of its own and the demo seed. `start` brings up
 * the sink, the database and the app; `close` takes down what `start` made but the app, which
 * the test stops itself (it may have restarted it with `env()`).
 */
export function appWithMailSink(o: { dirPrefix: string; env?: Record<string, string> }) {
  const smtp = smtpServer();
  let db: Awaited<ReturnType<typeof createDatabase>> | undefined;
  let dataDir = "";
  let sql: pg.Pool | undefined;
  const env = () => ({
    DATABASE_URL: db?.url,
    JWT_SECRET: inject("jwtSecret"),
    DATA_DIR: dataDir,
    SEED_DEMO: "true",
    SMTP_URL: `smtp://127.0.0.1:${smtp.port()}`,
    QUEUE_POLL_SECONDS: "0.5",
    EMAIL_RETRY_DELAY_SECONDS: "1",
    ...o.env,
  });
  return {
    smtp,
    env,
    async start(): Promise<{ app: StartedApp; demo: DemoFile; sql: pg.Pool }> {
      await smtp.listen();
      db = await createDatabase();
      dataDir = mkdtempSync(path.join(tmpdir(), o.dirPrefix));
      const app = await startApp(env());
      const demo = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8")) as DemoFile;
      sql = new pg.Pool({ connectionString: db.url, max: 2 });
      return { app, demo, sql };
    },
    async close() {
      await sql?.end();
      await smtp.close();
      await db?.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
