import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { prisma } from "@/server/db";
import { revokeApiKey } from "@/server/services/projects";
import { dedicatedApp } from "../support/dedicated-app";
import { makeProject } from "../support/fixtures";
import { createDatabase, type StartedApp, startApp } from "../support/global-setup";
import { logLine } from "../support/launch.mjs";

const anonymous = (base: string, key: string) => fetch(`${base}/api/v1/auth/anonymous`, { method: "POST", headers: { "X-API-Key": key } });

describe("revoking an API key that an instance has cached, where the instance cannot hear it (no Redis channel)", () => {
  const TTL_SECONDS = 4;
  const MARGIN_MS = 1_000;
  // Without REDIS_URL the instance subscribes to no invalidations: a revocation made by another
  // process reaches it only when its entry expires. (With the channel it is at once:
  // e2e/api/deployment.test.ts.)
  const app = dedicatedApp({ API_KEY_CACHE_TTL_SECONDS: String(TTL_SECONDS), REDIS_URL: "" });
  const readData = (key: string, token: string) =>
    fetch(`${app().baseUrl}/api/v1/players/me/data`, { headers: { "X-API-Key": key, Authorization: `Bearer ${token}` } });

  it("keeps answering from the cache until the TTL, then refuses the key (401 INVALID_API_KEY) within the TTL + 1 s", async () => {
    const project = await makeProject();
    const key = await prisma().apiKey.findFirstOrThrow({ where: { projectId: project.projectId, kind: "CLIENT" } });
    const beforeLookup = Date.now();
    const signedIn = await anonymous(app().baseUrl, project.clientKey); // the lookup the instance caches
    expect(signedIn.status).toBe(200);
    const cachedAt = Date.now(); // the entry was made between beforeLookup and now
    const { accessToken } = (await signedIn.json()) as { accessToken: string };
    await revokeApiKey({ projectId: project.projectId, keyId: key.id }); // in this process: the instance is not told
    expect(await prisma().apiKey.count({ where: { id: key.id, revokedAt: { not: null } } })).toBe(1);
    // Still served from the instance's cache: the test exercises the cached path, not a fresh lookup.
    expect((await readData(project.clientKey, accessToken)).status).toBe(200);
    let refused: Response | undefined;
    while (Date.now() - cachedAt <= TTL_SECONDS * 1_000 + MARGIN_MS) {
      const res = await readData(project.clientKey, accessToken);
      if (res.status !== 200) {
        refused = res;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(refused?.status, "the revoked key was still accepted after the TTL + margin").toBe(401);
    expect((await refused?.json())?.error.code).toBe("INVALID_API_KEY");
    expect(Date.now() - beforeLookup, "refused before the cached entry expired").toBeGreaterThanOrEqual(TTL_SECONDS * 1_000);
    expect((await readData(project.clientKey, accessToken)).status).toBe(401); // and it stays refused
    expect((await anonymous(app().baseUrl, project.serverKey)).status).toBe(200); // the project's other key still works
  });
});

describe("an unhandled error (the 500 path)", () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  let broken: StartedApp;
  let dataDir: string;
  beforeAll(async () => {
    db = await createDatabase();
    dataDir = mkdtempSync(path.join(tmpdir(), "gb-500-"));
    broken = await startApp({ DATABASE_URL: db.url, JWT_SECRET: inject("jwtSecret"), DATA_DIR: dataDir, SEED_DEMO: "true" });
  });
  afterAll(async () => {
    await broken?.stop();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers 500 INTERNAL_ERROR with the generic message and no internals, keeping X-Request-Id and the rate-limit headers", async () => {
    const demo = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8")) as { apiKey: string };
    const session = (await (await anonymous(broken.baseUrl, demo.apiKey)).json()) as { accessToken: string };
    // Break what the route needs, the way a bad deploy or a manual change would.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query("ALTER TABLE player_saves RENAME COLUMN sha256 TO sha256_gone");
    await client.end();
    const res = await fetch(`${broken.baseUrl}/api/v1/saves`, {
      headers: { "X-API-Key": demo.apiKey, Authorization: `Bearer ${session.accessToken}`, "X-Request-Id": "trace-500" },
    });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: { code: "INTERNAL_ERROR", message: "Something went wrong on our side.", details: {} } });
    expect(text).not.toMatch(/sha256|column|player_saves|at \//);
    expect(res.headers.get("x-request-id")).toBe("trace-500");
    expect(res.headers.get("x-ratelimit-limit")).toBe("200");
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const logged = await logLine(broken, "the unhandled error's line", (l) => l.requestId === "trace-500" && l.msg === "unhandled error");
    expect(logged).toMatchObject({ level: "error", component: "http", err: { message: expect.stringMatching(/sha256/) } });
  });
});
