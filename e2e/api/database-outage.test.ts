import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { checkAgainstDocument } from "../support/api";
import { makeProject } from "../support/fixtures";
import { type StartedApp, startApp } from "../support/global-setup";
import { type TcpProxy, tcpProxy } from "../support/tcp-proxy";

/** The app reaches Postgres through a proxy the test cuts: a real outage, for this app only. */
describe("database outage", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "gb-outage-"));
  let proxy: TcpProxy;
  let app: StartedApp;
  beforeAll(async () => {
    const direct = new URL(inject("databaseUrl"));
    proxy = await tcpProxy(Number(direct.port || 5432), direct.hostname);
    const viaProxy = new URL(direct);
    viaProxy.port = String(proxy.port);
    app = await startApp({
      DATABASE_URL: viaProxy.toString(),
      JWT_SECRET: inject("jwtSecret"),
      DATA_DIR: dataDir,
      SEED_DEMO: "false",
      REDIS_URL: undefined,
      API_KEY_CACHE_TTL_SECONDS: "0",
    });
  });
  afterAll(async () => {
    await app?.stop();
    await proxy?.cut();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("health and readiness answer 503 (liveness 200) and requests answer 503 SERVICE_UNAVAILABLE (not 500) until the database is back", async () => {
    const project = await makeProject();
    const base = app.baseUrl;
    const signIn = () => fetch(`${base}/api/v1/auth/anonymous`, { method: "POST", headers: { "X-API-Key": project.clientKey } });
    expect((await signIn()).status).toBe(200); // through this test's app and proxy, not the suite's shared app

    await proxy.cut();
    const health = await fetch(`${base}/api/health`);
    expect(health.status).toBe(503);
    expect(health.headers.get("retry-after")).toBeTruthy();
    expect(await health.json()).toMatchObject({ status: "down", database: { ok: false } });
    const refused = await signIn();
    expect(refused.status).toBe(503);
    await checkAgainstDocument("POST", "/api/v1/auth/anonymous", 503, await refused.clone().json());
    expect(refused.headers.get("retry-after")).toBeTruthy();
    const body = (await refused.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(body.error.message).not.toMatch(/ECONN|pg|prisma|127\.0\.0\.1/i);
    const ready = await fetch(`${base}/api/health/ready`);
    expect([ready.status, await ready.json()]).toEqual([
      503,
      { status: "unavailable", database: { ok: false, latencyMs: expect.any(Number) } },
    ]);
    // Alive all the same: restarting the process would not bring the database back.
    expect((await fetch(`${base}/api/health/live`)).status).toBe(200);

    await proxy.restore();
    let recovered = false;
    for (let i = 0; i < 50 && !recovered; i++) {
      recovered = (await fetch(`${base}/api/health`)).status === 200;
      if (!recovered) await new Promise((r) => setTimeout(r, 100));
    }
    expect(recovered).toBe(true);
    expect((await fetch(`${base}/api/health/ready`)).status).toBe(200);
    expect((await signIn()).status).toBe(200);
  }, 60_000);
});
