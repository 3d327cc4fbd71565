import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";

/**
 * Starts the real product for the suite: a fresh database on the machine's Postgres, the app
 * through the same launcher `npm start` uses (production build, rebuilt only when sources
 * changed), and Redis when REDIS_URL is set.
 */
declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    dataDir: string;
    redisUrl: string;
    jwtSecret: string;
    rateLimitWindowSeconds: number;
  }
}

export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export async function createDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `gb_test_${Date.now()}_${randomBytes(3).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export type StartedApp = { baseUrl: string; child: ChildProcess; output: () => string; stop: () => Promise<number | null> };

/** Runs `node server/cli/start.mjs` with the given environment and waits until it says ready. */
export async function startApp(env: Record<string, string | undefined>, timeoutMs = 600_000): Promise<StartedApp> {
  const port = Number(env.PORT ?? (await freePort()));
  const childEnv: NodeJS.ProcessEnv = { NODE_ENV: "production" };
  for (const [name, value] of Object.entries({ ...process.env, NODE_ENV: "production", PORT: String(port), HOST: "127.0.0.1", ...env })) {
    if (value !== undefined) childEnv[name] = value;
  }
  const child = spawn(process.execPath, ["server/cli/start.mjs"], {
    cwd: path.resolve(import.meta.dirname, "../.."),
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    output += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`app did not start in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const check = setInterval(() => {
      if (output.includes("[start] ready on")) {
        clearInterval(check);
        clearTimeout(timer);
        resolve();
      }
    }, 50);
    void exited.then((code) => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`app exited with ${code} before it was ready:\n${output}`));
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

export default async function setup(project: TestProject) {
  const database = await createDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), "gb-test-"));
  const jwtSecret = randomBytes(32).toString("base64url");
  const redisUrl = process.env.REDIS_URL ?? "";
  const rateLimitWindowSeconds = 60;
  const app = await startApp({
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    JWT_SECRET: jwtSecret,
    REDIS_URL: redisUrl || undefined,
    RATE_LIMIT_WINDOW_SECONDS: String(rateLimitWindowSeconds),
    TRUST_PROXY: "true",
  });
  project.provide("baseUrl", app.baseUrl);
  project.provide("databaseUrl", database.url);
  project.provide("dataDir", dataDir);
  project.provide("redisUrl", redisUrl);
  project.provide("jwtSecret", jwtSecret);
  project.provide("rateLimitWindowSeconds", rateLimitWindowSeconds);
  return async () => {
    await app.stop();
    if (process.env.KEEP_TEST_DB !== "1") await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
