import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { freePort, type StartedApp, startApp } from "../support/global-setup";
import { logLine, readable, root, until } from "../support/launch.mjs";

/** `npm start` without DATABASE_URL: embedded Postgres, migrations, demo seed, clean stop, reuse. */
const dataDir = mkdtempSync(path.join(tmpdir(), "gb-launcher-"));
// As root, the embedded Postgres runs as the "postgres" user, which must be able to enter it.
chmodSync(dataDir, 0o755);
/** Every app a test started: stopped after the file even when an assertion failed midway. */
const launched: StartedApp[] = [];
async function launch(env: Record<string, string | undefined>, timeoutMs?: number): Promise<StartedApp> {
  const app = await startApp(env, timeoutMs);
  launched.push(app);
  return app;
}
afterAll(async () => {
  for (const app of launched) if (app.child.exitCode === null && app.child.signalCode === null) await app.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function embeddedEnv(port: number, pgPort: number): Record<string, string | undefined> {
  return {
    DATABASE_URL: undefined,
    JWT_SECRET: undefined,
    REDIS_URL: undefined,
    DATA_DIR: dataDir,
    PORT: String(port),
    EMBEDDED_POSTGRES_PORT: String(pgPort),
    PUBLIC_URL: undefined,
  };
}

/** Why a start that should fail failed ("started" when it did not fail; that app is stopped again). */
async function startFailure(env: Record<string, string | undefined>): Promise<string> {
  return launch(env, 60_000).then(
    async (app) => {
      await app.stop();
      return "started";
    },
    (error: Error) => String(error),
  );
}

/** Alive and not a zombie: an orphan's exit may never be reaped by this container's init. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // Gone between the two looks: not running.
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "(x) Z";
  return stat[stat.lastIndexOf(")") + 2] !== "Z";
}

type Demo = { baseUrl: string; apiKey: string; serverApiKey: string; freeApiKey: string; operatorEmail: string; operatorPassword: string };

async function signIn(baseUrl: string, key: string): Promise<number> {
  const res = await fetch(`${baseUrl}/api/v1/auth/anonymous`, {
    method: "POST",
    headers: { "X-API-Key": key, "Content-Type": "application/json" },
  });
  return res.status;
}

describe("the embedded default", () => {
  it("starts on a fresh data directory, seeds the demo, stops cleanly and reuses everything on the next start", async () => {
    const pgPort = await freePort();
    const first = await launch(embeddedEnv(await freePort(), pgPort));
    const demoFile = path.join(dataDir, "demo.json");
    const demo = JSON.parse(readFileSync(demoFile, "utf8")) as Demo;
    expect(Object.keys(demo)).toEqual(["baseUrl", "apiKey", "serverApiKey", "freeApiKey", "operatorEmail", "operatorPassword"]);
    expect(first.output()).toContain(demo.apiKey);
    expect(await signIn(first.baseUrl, demo.apiKey)).toBe(200);
    expect(await signIn(first.baseUrl, demo.freeApiKey)).toBe(200);
    const secrets = readFileSync(path.join(dataDir, "secrets.json"), "utf8");
    const firstExit = await first.stop();
    expect(firstExit, first.output()).toBe(0);
    expect(first.output()).toContain("embedded Postgres stopped");
    expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);

    const second = await launch(embeddedEnv(await freePort(), pgPort));
    // Secrets are printed on the first start only; later starts point to the file.
    expect(second.output()).not.toContain(demo.apiKey);
    expect(second.output()).not.toContain(demo.operatorPassword);
    expect(second.output()).toContain("demo.json");

    // A second launcher on the same data directory, or on a taken Postgres port, says why and how to fix it.
    const sameDir = await startFailure(embeddedEnv(await freePort(), await freePort()));
    expect(sameDir).toMatch(/data directory .* is in use by another npm start \(pid \d+\).*DATA_DIR=/s);
    const otherDir = mkdtempSync(path.join(tmpdir(), "gb-launcher-other-"));
    chmodSync(otherDir, 0o755);
    const portTaken = await startFailure({ ...embeddedEnv(await freePort(), pgPort), DATA_DIR: otherDir });
    rmSync(otherDir, { recursive: true, force: true });
    expect(portTaken).toMatch(new RegExp(`port ${pgPort} for the embedded Postgres is already in use.*EMBEDDED_POSTGRES_PORT=`, "s"));
    expect(portTaken).not.toContain("fatal: undefined");
    expect(await signIn(second.baseUrl, demo.apiKey)).toBe(200);

    const again = JSON.parse(readFileSync(demoFile, "utf8")) as Demo;
    expect(again.apiKey).toBe(demo.apiKey);
    expect(again.operatorPassword).toBe(demo.operatorPassword);
    expect(readFileSync(path.join(dataDir, "secrets.json"), "utf8")).toBe(secrets);
    expect(second.output()).not.toContain("initialising embedded Postgres");
    expect(await signIn(second.baseUrl, demo.apiKey)).toBe(200);
    expect(await second.stop()).toBe(0);
  }, 180_000);

  it("gives the embedded Postgres EMBEDDED_POSTGRES_SHARED_BUFFERS_MB as its shared_buffers", async () => {
    const pgPort = await freePort();
    const app = await launch({ ...embeddedEnv(await freePort(), pgPort), EMBEDDED_POSTGRES_SHARED_BUFFERS_MB: "64" });
    const { postgresPassword } = JSON.parse(readFileSync(path.join(dataDir, "secrets.json"), "utf8")) as { postgresPassword: string };
    const client = new pg.Client({
      connectionString: `postgresql://postgres:${encodeURIComponent(postgresPassword)}@127.0.0.1:${pgPort}/game`,
    });
    await client.connect();
    const { rows } = await client.query<{ shared_buffers: string }>("SHOW shared_buffers");
    await client.end();
    expect(rows[0]?.shared_buffers).toBe("64MB");
    expect(app.output()).toContain("shared_buffers 64 MB");
    expect(await app.stop()).toBe(0);
  }, 120_000);

  it("stops a Postgres left running on the data directory by a killed launcher; one that will not stop is named with the fix", async () => {
    const pgPort = await freePort();
    const pidFile = path.join(dataDir, "postgres", "postmaster.pid");
    const postmasterPid = () => Number.parseInt(readFileSync(pidFile, "utf8").split("\n")[0] ?? "", 10);
    const killLauncher = async (app: StartedApp) => {
      app.child.kill("SIGKILL");
      await app.stop();
    };

    const killed = await launch(embeddedEnv(await freePort(), pgPort));
    const orphan = postmasterPid();
    await killLauncher(killed);
    expect(isRunning(orphan)).toBe(true);
    const next = await launch(embeddedEnv(await freePort(), pgPort), 60_000);
    expect(next.output()).toContain(`stopping an orphaned embedded Postgres (pid ${orphan})`);
    expect(isRunning(orphan)).toBe(false);
    expect(await signIn(next.baseUrl, (JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8")) as Demo).apiKey)).toBe(200);

    const stuck = postmasterPid();
    await killLauncher(next);
    // A stopped process takes the launcher's SIGINT but does not act on it.
    process.kill(stuck, "SIGSTOP");
    const refused = await startFailure(embeddedEnv(await freePort(), pgPort));
    process.kill(stuck, "SIGCONT");
    expect(refused).toMatch(
      new RegExp(`in use by a running Postgres \\(pid ${stuck}\\) and it did not stop.*kill ${stuck}.*DATA_DIR=`, "s"),
    );
    expect(refused).not.toContain("fatal: undefined");
    for (let i = 0; i < 100 && isRunning(stuck); i++) await new Promise((r) => setTimeout(r, 100));
    expect(isRunning(stuck)).toBe(false);
  }, 120_000);

  it("removes a postmaster.pid whose pid now belongs to another program, without signalling that program", async () => {
    const pidFile = path.join(dataDir, "postgres", "postmaster.pid");
    expect(existsSync(pidFile)).toBe(false);
    // This test's own process stands for the program that got the pid: a signal would end the test.
    writeFileSync(pidFile, `${process.pid}\n${path.join(dataDir, "postgres")}\n`);
    const app = await launch(embeddedEnv(await freePort(), await freePort()), 60_000);
    const exit = await app.stop();
    expect(app.output()).toMatch(
      new RegExp(`removing a stale \\S*postmaster\\.pid \\(pid ${process.pid} is not a Postgres running on it\\)`),
    );
    expect(exit).toBe(0);
  }, 90_000);

  it.skipIf(process.getuid?.() !== 0)(
    "as root, a data folder the postgres user cannot enter (a 0700 parent) is named with the fix before Postgres is initialised",
    async () => {
      const closed = mkdtempSync(path.join(tmpdir(), "gb-closed-"));
      chmodSync(closed, 0o700);
      try {
        const env = { ...embeddedEnv(await freePort(), await freePort()), DATA_DIR: path.join(closed, "data") };
        const failure = await startFailure(env);
        expect(failure).toContain(`"postgres" user, which cannot enter ${closed}`);
        expect(failure).toContain(`chmod o+x ${closed}`);
        expect(existsSync(path.join(closed, "data", "postgres", "PG_VERSION"))).toBe(false);
      } finally {
        rmSync(closed, { recursive: true, force: true });
      }
    },
    90_000,
  );

  it("names a bad variable as the app would (the shared schema) and stops before starting anything", async () => {
    const failure = await startFailure({
      DATA_DIR: dataDir,
      HTTP_HEADERS_TIMEOUT_SECONDS: "soon",
      RATE_LIMIT_WINDOW_SECONDS: "0",
      PORT: String(await freePort()),
    });
    expect(failure).toMatch(/Invalid environment:\n\s+RATE_LIMIT_WINDOW_SECONDS: .*\n\s+HTTP_HEADERS_TIMEOUT_SECONDS: /);
    expect(failure).not.toContain("initialising embedded Postgres");
  }, 90_000);

  it("refuses to start in production without JWT_SECRET when given a database", async () => {
    const failure = await startFailure({
      DATA_DIR: dataDir,
      JWT_SECRET: undefined,
      DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/postgres",
      PORT: String(await freePort()),
    });
    expect(failure).toMatch(/JWT_SECRET/);
  }, 90_000);
});

describe("stopping", () => {
  it("stops on SIGTERM with its workers serving requests: exit 0, Postgres stopped, well within 30 s", async () => {
    const ownDir = mkdtempSync(path.join(tmpdir(), "gb-launcher-stop-"));
    chmodSync(ownDir, 0o755);
    onTestFinished(() => rmSync(ownDir, { recursive: true, force: true }));
    const app = await launch({ ...embeddedEnv(await freePort(), await freePort()), DATA_DIR: ownDir, WEB_CONCURRENCY: "2" });
    const demo = JSON.parse(readFileSync(path.join(ownDir, "demo.json"), "utf8")) as Demo;
    // Requests keep arriving on kept-alive connections until the server closes them.
    let serving = true;
    const clients = Array.from({ length: 4 }, async () => {
      while (serving) await signIn(app.baseUrl, demo.apiKey).catch(() => (serving = false));
    });
    await logLine(app, "a served request", (line) => line.component === "http");
    const signalled = Date.now();
    const exit = await app.stop();
    const stopMs = Date.now() - signalled;
    serving = false;
    await Promise.all(clients);
    expect(exit, app.output()).toBe(0);
    expect(app.output()).toMatch(/embedded Postgres stopped \(\d+ ms\)/);
    expect(stopMs, readable(app.output())).toBeLessThan(30_000);
  }, 300_000);

  it("passes a SIGTERM sent to npm start itself on to the launcher, which stops Postgres and exits", async () => {
    const ownDir = mkdtempSync(path.join(tmpdir(), "gb-launcher-npm-"));
    chmodSync(ownDir, 0o755);
    onTestFinished(() => rmSync(ownDir, { recursive: true, force: true }));
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", WEB_CONCURRENCY: "1", HOST: "127.0.0.1" };
    for (const [name, value] of Object.entries({ ...embeddedEnv(await freePort(), await freePort()), DATA_DIR: ownDir })) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
    // What a process manager does: run `npm start` and signal the process it started.
    const npm = spawn("npm", ["start"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    npm.stdout.on("data", (d) => (output += String(d)));
    npm.stderr.on("data", (d) => (output += String(d)));
    const npmExited = new Promise<number | null>((resolve) => npm.on("exit", (code) => resolve(code)));
    onTestFinished(() => {
      if (npm.exitCode === null) npm.kill("SIGKILL");
    });
    await until("ready", () => output.includes('"ready on ') || npm.exitCode !== null, 240_000);
    // An npm start that ended before it was ready says why (its output), not "no launcher.pid".
    expect(npm.exitCode, `npm start ended before it was ready:\n${output}`).toBeNull();
    const launcherPid = Number(readFileSync(path.join(ownDir, "launcher.pid"), "utf8"));
    onTestFinished(() => {
      // Signalled directly when npm did not pass it on: it still stops its Postgres.
      if (isRunning(launcherPid)) process.kill(launcherPid, "SIGTERM");
    });
    npm.kill("SIGTERM");
    await npmExited;
    // The launcher removes its pid file on the way out, after Postgres has stopped.
    await until("the launcher's exit", () => !isRunning(launcherPid), 60_000);
    expect(output).toMatch(/embedded Postgres stopped \(\d+ ms\)/);
    expect(existsSync(path.join(ownDir, "launcher.pid"))).toBe(false);
  }, 300_000);
});
