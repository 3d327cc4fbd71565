import { existsSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { baseUrl } from "../support/api";
import { anonymousPlayer, makeProject } from "../support/fixtures";
import { type StartedApp, startApp } from "../support/global-setup";
import { logLine } from "../support/launch.mjs";

/**
 * An instance of its own for this describe (the suite's shared app must not be stopped), on the
 * suite's database, with `shutdownDelaySeconds`; `app()` is it once started, `dataDir` its DATA_DIR.
 */
function ownInstance(prefix: string, shutdownDelaySeconds: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  let app: StartedApp | undefined;
  beforeAll(async () => {
    app = await startApp({
      DATABASE_URL: inject("databaseUrl"),
      JWT_SECRET: inject("jwtSecret"),
      DATA_DIR: dataDir,
      SEED_DEMO: "false",
      SHUTDOWN_DELAY_SECONDS: String(shutdownDelaySeconds),
    });
  });
  afterAll(async () => {
    await app?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    dataDir,
    app: (): StartedApp => {
      if (!app) throw new Error("the instance did not start");
      return app;
    },
  };
}

/**
 * Liveness and readiness as a load balancer or Kubernetes uses them. The database-down case is
 * in database-outage.test.ts; here, draining: after SIGTERM, with SHUTDOWN_DELAY_SECONDS, the
 * instance keeps serving while readiness says 503, so traffic can move away before it closes.
 */
describe("liveness and readiness", () => {
  // A delay long enough that the checks after SIGTERM fit in it on a busy machine (3 s did not).
  const instance = ownInstance("gb-probes-", 10);
  const { dataDir } = instance;

  it("a running instance is live and ready", async () => {
    const app = instance.app();
    const [live, ready] = await Promise.all([fetch(`${app.baseUrl}/api/health/live`), fetch(`${app.baseUrl}/api/health/ready`)]);
    expect([live.status, await live.json()]).toEqual([200, { status: "ok", uptimeSeconds: expect.any(Number) }]);
    expect([ready.status, await ready.json()]).toEqual([200, { status: "ready", database: { ok: true, latencyMs: expect.any(Number) } }]);
    expect(ready.headers.get("cache-control")).toBe("no-store");
  });

  it("a production start on its own database with JWT_SECRET writes no secrets file into its data directory", () => {
    // The container image runs with a read-only root and DATA_DIR on an empty volume.
    expect(existsSync(path.join(dataDir, "secrets.json"))).toBe(false);
  });

  it("after SIGTERM readiness answers 503 draining while game requests are still served, then the process exits 0", async () => {
    const app = instance.app();
    const project = await makeProject();
    const agent = { keepalive: true };
    app.child.kill("SIGTERM");
    let ready: Response | undefined;
    for (let i = 0; i < 40; i++) {
      ready = await fetch(`${app.baseUrl}/api/health/ready`, agent);
      if (ready.status === 503) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect([ready?.status, await ready?.json()]).toEqual([503, { status: "draining", database: { ok: true, latencyMs: 0 } }]);
    expect(ready?.headers.get("retry-after")).toBe("5");
    const signIn = await fetch(`${app.baseUrl}/api/v1/auth/anonymous`, { method: "POST", headers: { "X-API-Key": project.clientKey } });
    expect(signIn.status).toBe(200);
    expect((await fetch(`${app.baseUrl}/api/health/live`)).status).toBe(200);
    expect(await app.exited).toBe(0);
  }, 60_000);
});

/**
 * A request that is running when SIGTERM arrives finishes: here without SHUTDOWN_DELAY_SECONDS,
 * so the server stops accepting at once while the request's body is still on its way. The
 * client sends the headers with `Expect: 100-continue` and waits for the 100 (the server has
 * the request), then the signal, then — once the launcher says it is shutting down and the port
 * takes no new connection — the body.
 */
describe("stopping with a request in flight", () => {
  const instance = ownInstance("gb-drain-", 0);

  it("a data PUT whose body arrives after SIGTERM is stored and answered, the connection closed, and the process exits 0", async () => {
    const app = instance.app();
    const project = await makeProject();
    const player = await anonymousPlayer(project.clientKey);
    const body = JSON.stringify({ value: { level: 7 } });
    const { port } = new URL(app.baseUrl);
    const answer = new Promise<{ status: number; connection: string | undefined; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          method: "PUT",
          path: `/api/v1/players/${player.playerId}/data/drain-check`,
          headers: {
            "X-API-Key": project.clientKey,
            Authorization: `Bearer ${player.accessToken}`,
            "Content-Type": "application/json",
            "Content-Length": Buffer.byteLength(body),
            Expect: "100-continue",
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c) => {
            text += c;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, text }));
        },
      );
      req.on("error", reject);
      req.once("continue", async () => {
        try {
          app.child.kill("SIGTERM");
          await logLine(app, "the launcher's shutdown line", (l) => l.msg === "SIGTERM: shutting down", 20_000);
          // The server no longer accepts: a new connection is refused while this request runs.
          await expect(fetch(`${app.baseUrl}/api/health/live`)).rejects.toThrow();
          req.end(body);
        } catch (error) {
          reject(error);
        }
      });
      req.flushHeaders();
    });
    const res = await answer;
    expect([res.status, res.connection]).toEqual([201, "close"]);
    expect(JSON.parse(res.text)).toMatchObject({ key: "drain-check", value: { level: 7 } });
    expect(await app.exited).toBe(0);
  }, 60_000);
});

describe("the probes' other methods", () => {
  it.each(["/api/health", "/api/health/live", "/api/health/ready", "/api/config-schema.json"])(
    "POST %s answers 405 METHOD_NOT_ALLOWED in the error shape with Allow",
    async (probe) => {
      const res = await fetch(`${baseUrl()}${probe}`, { method: "POST" });
      expect([res.status, res.headers.get("allow")]).toEqual([405, "GET, OPTIONS"]);
      expect(await res.json()).toMatchObject({ error: { code: "METHOD_NOT_ALLOWED" } });
    },
  );
});
