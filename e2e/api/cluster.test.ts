import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createOperatorToken } from "@/server/identity/operator-tokens";
import { createLeaderboard } from "@/server/services/leaderboards/definitions";
import { upsertOperator } from "@/server/services/operators";
import { createApiKey } from "@/server/services/projects";
import { metricSample } from "../support/api";
import { makeProject, type TestProject } from "../support/fixtures";
import { freePort, type StartedApp, startApp } from "../support/global-setup";
import { logLines, until } from "../support/launch.mjs";

/**
 * `npm start` with WEB_CONCURRENCY=2: node:cluster workers behind one port, without Redis. What
 * one process did alone must hold across them: one rate-limit budget per project (the counters
 * live in the launcher's primary), revocations reach every worker at once, a killed worker is
 * replaced, a crash loop and SIGTERM stop everything. Requests are pinned to a worker through a
 * keep-alive connection (one socket per agent; cluster hands each connection to one worker);
 * /api/internal/bare (BENCH_BARE_ROUTE) names the pid that served it.
 */
const METRICS_TOKEN = randomBytes(16).toString("hex");

const dataDirs: string[] = [];
const launched: StartedApp[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "gb-cluster-"));
  chmodSync(dir, 0o755); // as root, the embedded Postgres runs as "postgres" and must enter it
  dataDirs.push(dir);
  return dir;
}
async function launch(env: Record<string, string | undefined>): Promise<StartedApp> {
  const app = await startApp({
    WEB_CONCURRENCY: "2",
    REDIS_URL: undefined,
    UPSTASH_REDIS_REST_URL: undefined,
    UPSTASH_REDIS_REST_TOKEN: undefined,
    BENCH_BARE_ROUTE: "1",
    SEED_DEMO: "false",
    RATE_LIMIT_STORE_TIMEOUT_MS: "1000",
    DATA_DIR: tempDir(),
    ...env,
  });
  launched.push(app);
  return app;
}
afterAll(async () => {
  for (const app of launched) if (app.child.exitCode === null && app.child.signalCode === null) await app.stop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

type Res = { status: number; headers: http.IncomingHttpHeaders; body: Record<string, unknown> };

function send(
  base: string,
  agent: http.Agent,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: unknown; timeoutMs?: number },
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const payload = o.body === undefined ? undefined : JSON.stringify(o.body);
    const headers: Record<string, string | number> = { ...o.headers };
    if (payload !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = Buffer.byteLength(payload);
    }
    const req = http.request(`${base}${o.path}`, { method: o.method ?? "GET", headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: Record<string, unknown> = {};
        try {
          body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        } catch {
          body = { text };
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
      });
      res.on("error", reject);
    });
    req.setTimeout(o.timeoutMs ?? 10_000, () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(payload);
  });
}

const servedBy = async (base: string, agent: http.Agent) => (await send(base, agent, { path: "/api/internal/bare" })).body.pid as number;

/** One keep-alive connection per worker: agents are opened until each pid has one. */
async function agentPerWorker(base: string, workers: number): Promise<Map<number, http.Agent>> {
  const byPid = new Map<number, http.Agent>();
  for (let i = 0; i < 20 && byPid.size < workers; i++) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const pid = await servedBy(base, agent);
    if (byPid.has(pid)) agent.destroy();
    else byPid.set(pid, agent);
  }
  return byPid;
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return false;
  }
}

/** The launcher's workers: its children that carry a worker index (not the embedded Postgres). */
function workersOf(primary: number): Map<number, number> {
  const found = new Map<number, number>();
  for (const entry of readdirProc()) {
    if (parentOf(entry) !== primary) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
      const index = environ.find((v) => v.startsWith("GAME_BACKEND_WORKER_INDEX="));
      if (index && isRunning(entry)) found.set(entry, Number(index.split("=")[1]));
    } catch {}
  }
  return found;
}
function readdirProc(): number[] {
  return readdirSync("/proc")
    .filter((e) => /^\d+$/.test(e))
    .map(Number);
}

describe("two workers on one database, without Redis", () => {
  let app: StartedApp;
  let base: string;
  let workerA: { pid: number; agent: http.Agent };
  let workerB: { pid: number; agent: http.Agent };
  let project: TestProject;
  const board = "cluster-board";

  beforeAll(async () => {
    app = await launch({
      DATABASE_URL: inject("databaseUrl"),
      JWT_SECRET: inject("jwtSecret"),
      // Long enough that only an invalidation (not an expiry) explains a refusal in these tests;
      // an hour-long window so the budget test never straddles a window boundary.
      SESSION_CACHE_TTL_SECONDS: "30",
      API_KEY_CACHE_TTL_SECONDS: "300",
      DEFINITION_CACHE_TTL_MS: "60000",
      RATE_LIMIT_WINDOW_SECONDS: "3600",
      // A broadcast no sibling acknowledges holds its request this long: far longer than any
      // request takes on a busy machine, so a test can tell the two apart by time.
      CLUSTER_BROADCAST_WAIT_MS: "20000",
      METRICS_TOKEN,
    });
    base = app.baseUrl;
    project = await makeProject();
    await createLeaderboard({
      projectId: project.projectId,
      input: { id: board, name: "Board", sortOrder: "desc", operator: "best", minScore: 0 },
    });
  }, 120_000);

  it("serves from both workers, children of the launcher, and says so when ready", async () => {
    const ready = logLines(app.output()).filter((l) => l.component === "start" && l.msg?.startsWith("ready on "));
    expect(ready.map((l) => l.msg)).toEqual([expect.stringMatching(/^ready on \S+ in \d+ ms \(production, 2 workers\)$/)]);
    const agents = await agentPerWorker(base, 2);
    expect(agents.size).toBe(2);
    const [[pidA, agentA], [pidB, agentB]] = [...agents] as [[number, http.Agent], [number, http.Agent]];
    workerA = { pid: pidA, agent: agentA };
    workerB = { pid: pidB, agent: agentB };
    for (const pid of agents.keys()) expect(parentOf(pid)).toBe(app.child.pid);
    expect([...workersOf(app.child.pid ?? 0).values()].sort()).toEqual([0, 1]);
    // A pinned connection stays on its worker.
    expect(await servedBy(base, workerA.agent)).toBe(pidA);
    expect(await servedBy(base, workerB.agent)).toBe(pidB);
  });

  it("keeps one budget per project across workers: a Free project's 100 per window, whichever worker counts", async () => {
    const free = await makeProject({ plan: "FREE" });
    await createLeaderboard({
      projectId: free.projectId,
      input: { id: board, name: "Board", sortOrder: "desc", operator: "best", minScore: 0 },
    });
    // Many connections (cluster deals them out in turn), all at once; a server key without a
    // player spends the project budget only.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 26 });
    const results = await Promise.all(
      Array.from({ length: 130 }, () =>
        send(base, agent, { path: `/api/v1/leaderboards/${board}`, headers: { "X-API-Key": free.serverKey } }),
      ),
    );
    agent.destroy();
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok.length).toBe(100);
    expect(limited.length).toBe(30);
    // Every allowed request saw its own place in the one counter.
    expect(ok.map((r) => Number(r.headers["x-ratelimit-remaining"])).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
    for (const r of limited) {
      expect(r.headers["x-ratelimit-limit"]).toBe("100");
      expect(r.headers["x-ratelimit-remaining"]).toBe("0");
      expect((r.body.error as { code: string }).code).toBe("RATE_LIMITED");
    }
    // Both workers refuse now.
    for (const w of [workerA, workerB]) {
      const r = await send(base, w.agent, { path: `/api/v1/leaderboards/${board}`, headers: { "X-API-Key": free.serverKey } });
      expect(r.status).toBe(429);
    }
  });

  it("a logout on one worker makes the access token fail on the other at once", async () => {
    const signIn = await send(base, workerA.agent, {
      method: "POST",
      path: "/api/v1/auth/anonymous",
      headers: { "X-API-Key": project.clientKey },
    });
    expect(signIn.status).toBe(200);
    const headers = { "X-API-Key": project.clientKey, Authorization: `Bearer ${signIn.body.accessToken as string}` };
    // Both workers have the session cached (SESSION_CACHE_TTL_SECONDS=30).
    for (const w of [workerA, workerB])
      expect((await send(base, w.agent, { path: "/api/v1/economy/currencies", headers })).status).toBe(200);
    expect((await send(base, workerA.agent, { method: "POST", path: "/api/v1/auth/logout", headers })).status).toBe(204);
    const after = await send(base, workerB.agent, { path: "/api/v1/economy/currencies", headers });
    expect(after.status).toBe(401);
    expect((after.body.error as { code: string }).code).toBe("INVALID_TOKEN");
  });

  /** The dashboard's procedures over HTTP on a chosen worker, as an instance admin's token. */
  async function dashboard() {
    const email = `cluster-${randomBytes(4).toString("hex")}@studio.test`;
    const admin = await upsertOperator({ email, name: email, password: "a long operator passphrase 9", isInstanceAdmin: true });
    const token = await createOperatorToken({
      operator: { id: admin.id, isInstanceAdmin: true },
      name: "cluster",
      role: "OWNER",
      projectIds: null,
      instanceAdmin: true,
    });
    return (agent: http.Agent, procedure: string, input: unknown) =>
      send(base, agent, {
        method: "POST",
        path: `/api/trpc/${procedure}`,
        headers: { Authorization: `Bearer ${token.token}` },
        body: input,
      });
  }

  it("a key revocation and a plan change made on one worker apply on the other at once", async () => {
    const trpc = await dashboard();
    const extra = await createApiKey({ projectId: project.projectId, kind: "SERVER", name: "doomed" });
    const page = (agent: http.Agent, key: string) =>
      send(base, agent, { path: `/api/v1/leaderboards/${board}`, headers: { "X-API-Key": key } });

    // Both workers have the key and the plan cached (API_KEY_CACHE_TTL_SECONDS=300).
    for (const w of [workerA, workerB]) {
      expect((await page(w.agent, extra.key)).status).toBe(200);
      expect((await page(w.agent, project.serverKey)).headers["x-ratelimit-limit"]).toBe("100000");
    }
    const revoked = await trpc(workerA.agent, "projects.revokeKey", { projectId: project.projectId, keyId: extra.id });
    expect(revoked.status).toBe(200);
    const refused = await page(workerB.agent, extra.key);
    expect(refused.status).toBe(401);
    expect((refused.body.error as { code: string }).code).toBe("INVALID_API_KEY");

    const plan = await trpc(workerB.agent, "projects.setPlan", { projectId: project.projectId, plan: "ENTERPRISE", customRateLimit: 777 });
    expect(plan.status).toBe(200);
    expect((await page(workerA.agent, project.serverKey)).headers["x-ratelimit-limit"]).toBe("777");
  });

  it("a currency and a leaderboard changed on one worker apply on the other at once (definitions cached for 60 s)", async () => {
    const trpc = await dashboard();
    const currency = `gems${randomBytes(3).toString("hex")}`;
    expect(
      (await trpc(workerA.agent, "economy.createCurrency", { projectId: project.projectId, currency: { id: currency, name: "Gems" } }))
        .status,
    ).toBe(200);
    const signIn = await send(base, workerA.agent, {
      method: "POST",
      path: "/api/v1/auth/anonymous",
      headers: { "X-API-Key": project.clientKey },
    });
    const headers = { "X-API-Key": project.clientKey, Authorization: `Bearer ${signIn.body.accessToken as string}` };
    const nameOn = async (w: { agent: http.Agent }) => {
      const res = await send(base, w.agent, { path: "/api/v1/economy/currencies", headers });
      return (res.body as unknown as Array<{ id: string; name: string }>).find((c) => c.id === currency)?.name;
    };
    const submitOn = (w: { agent: http.Agent }, score: number) =>
      send(base, w.agent, { method: "POST", path: `/api/v1/leaderboards/${board}/scores`, headers, body: { score } });

    // Both workers have the definitions cached (DEFINITION_CACHE_TTL_MS=60000).
    for (const w of [workerA, workerB]) {
      expect(await nameOn(w)).toBe("Gems");
      expect((await submitOn(w, 60)).status).toBe(200);
    }
    const renamed = await trpc(workerA.agent, "economy.updateCurrency", {
      projectId: project.projectId,
      id: currency,
      patch: { name: "Jewels" },
    });
    expect(renamed.status).toBe(200);
    expect(await nameOn(workerB)).toBe("Jewels");

    const bounded = await trpc(workerA.agent, "leaderboards.update", { projectId: project.projectId, id: board, patch: { maxScore: 50 } });
    expect(bounded.status).toBe(200);
    const refused = await submitOn(workerB, 70);
    expect(refused.status).toBe(422);
    expect((refused.body.error as { code: string }).code).toBe("SCORE_OUT_OF_RANGE");
  });

  it("one scrape of /api/metrics reports the requests of both workers, by route pattern, method, status class and error code", async () => {
    const scrape = async (agent: http.Agent) =>
      String((await send(base, agent, { path: "/api/metrics", headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).body.text);
    const ok = `gb_http_requests_total{route="/api/v1/leaderboards/{id}",method="GET",status="2xx",code=""}`;
    const notFound = `gb_http_requests_total{route="/api/v1/leaderboards/{id}",method="GET",status="4xx",code="LEADERBOARD_NOT_FOUND"}`;
    const before = await scrape(workerA.agent);
    const get = (agent: http.Agent, id: string) =>
      send(base, agent, { path: `/api/v1/leaderboards/${id}`, headers: { "X-API-Key": project.serverKey } });
    for (let i = 0; i < 3; i++) expect((await get(workerA.agent, board)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await get(workerB.agent, board)).status).toBe(200);
    expect((await get(workerB.agent, "no-such-board")).status).toBe(404);
    for (const agent of [workerA.agent, workerB.agent]) {
      const after = await scrape(agent);
      expect(metricSample(after, ok) - metricSample(before, ok)).toBe(7);
      expect(metricSample(after, notFound) - metricSample(before, notFound)).toBe(1);
    }
  });

  it("refuses a scrape without the metrics token (401 MISSING_TOKEN) or with a wrong one (401 INVALID_TOKEN), in the error shape", async () => {
    const missing = await send(base, workerA.agent, { path: "/api/metrics" });
    expect([missing.status, (missing.body.error as { code: string }).code]).toEqual([401, "MISSING_TOKEN"]);
    const wrong = await send(base, workerA.agent, { path: "/api/metrics", headers: { Authorization: "Bearer nope" } });
    expect([wrong.status, (wrong.body.error as { code: string }).code]).toEqual([401, "INVALID_TOKEN"]);
  });

  it("Debian's Prometheus scrapes the two workers as one instance and counts exactly the requests sent; the scrape passes promtool check metrics", async () => {
    const version = spawnSync("prometheus", ["--version"], { encoding: "utf8" });
    expect(version.error?.message, "Debian's prometheus is needed (apt-get install prometheus; .ci/run installs it)").toBeUndefined();
    const dir = tempDir();
    const tokenFile = path.join(dir, "token");
    writeFileSync(tokenFile, METRICS_TOKEN);
    const target = new URL(base).host;
    writeFileSync(
      path.join(dir, "prometheus.yml"),
      [
        "global: { scrape_interval: 1s }",
        "scrape_configs:",
        "  - job_name: game-backend",
        "    metrics_path: /api/metrics",
        `    authorization: { type: Bearer, credentials_file: ${tokenFile} }`,
        `    static_configs: [{ targets: ["${target}"] }]`,
      ].join("\n"),
    );
    const port = await freePort();
    const prometheus = spawn(
      "prometheus",
      [
        `--config.file=${path.join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${path.join(dir, "tsdb")}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: "ignore" },
    );
    try {
      const query = async (promql: string): Promise<number | null> => {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(promql)}`).catch(() => null);
        if (!res?.ok) return null;
        const body = (await res.json()) as { data: { result: Array<{ value: [number, string] }> } };
        return body.data.result[0] ? Number(body.data.result[0].value[1]) : 0;
      };
      const series = 'sum(gb_http_requests_total{route="/api/v1/leaderboards/{id}/scores",method="GET",code="METHOD_NOT_ALLOWED"})';
      await until("Prometheus's first successful scrape", async () => (await query('up{job="game-backend"}')) === 1, 30_000);
      const before = (await query(series)) ?? 0;
      // New connections each time: the cluster deals them to both workers.
      const sent = 25;
      for (let i = 0; i < sent; i++) {
        const agent = new http.Agent({ keepAlive: false });
        const res = await send(base, agent, { path: `/api/v1/leaderboards/${board}/scores`, headers: { "X-API-Key": project.serverKey } });
        expect(res.status).toBe(405);
      }
      await until(`Prometheus to count ${sent} more`, async () => (await query(series)) === before + sent, 30_000);
      expect((await query(series)) ?? 0).toBe(before + sent);
    } finally {
      prometheus.kill("SIGTERM");
    }
    const scrape = await send(base, workerA.agent, { path: "/api/metrics", headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    const lint = spawnSync("promtool", ["check", "metrics"], { input: String(scrape.body.text), encoding: "utf8" });
    expect(`${lint.status} ${lint.stdout}${lint.stderr}`).toBe("0 ");
  }, 90_000);

  it("replaces a SIGKILLed worker under the same index while the other keeps answering", async () => {
    const before = workersOf(app.child.pid ?? 0);
    const victim = workerB.pid;
    const victimIndex = before.get(victim);
    const loadAgent = new http.Agent({ keepAlive: false });
    const outcomes: Array<number | string> = [];
    let stop = false;
    const load = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (!stop) {
          outcomes.push(
            // A connection Node's round-robin was handing to the dying worker is never answered (README, Workers).
            await send(base, loadAgent, { path: "/api/internal/bare", timeoutMs: 2_000 }).then(
              (r) => r.status,
              (e: Error & { code?: string }) => e.code ?? e.message,
            ),
          );
        }
      }),
    );
    await until("the load to be flowing", () => outcomes.length >= 8);
    process.kill(victim, "SIGKILL");
    await until("the replacement", () => /worker \d+ replaced \(pid \d+\)/.test(app.output()), 20_000);
    stop = true;
    await load;
    const after = workersOf(app.child.pid ?? 0);
    expect(after.size).toBe(2);
    expect(after.has(victim)).toBe(false);
    expect([...after.values()].sort()).toEqual([0, 1]);
    const replacement = [...after].find(([pid]) => !before.has(pid));
    expect(replacement?.[1]).toBe(victimIndex);
    expect(app.output()).toMatch(new RegExp(`worker ${victimIndex} \\(pid ${victim}\\) died \\(SIGKILL\\)`));
    // Only connections the dead worker held may fail (4 at a time at most); every answer is a 200.
    const failures = outcomes.filter((o) => typeof o === "string");
    expect(failures.length).toBeLessThanOrEqual(4);
    expect(outcomes.filter((o) => typeof o === "number" && o !== 200)).toEqual([]);
    expect(outcomes.filter((o) => o === 200).length).toBeGreaterThan(20);
    // The replacement serves (and shares the budgets: it counts on the primary's counters).
    const agents = await agentPerWorker(base, 2);
    expect(new Set(agents.keys())).toEqual(new Set(after.keys()));
    // A logout on the survivor is not held up by the fresh replacement, which has no session
    // cache loaded yet: its launcher code acknowledges the broadcast (else the logout waits out
    // CLUSTER_BROADCAST_WAIT_MS, 20 s here, and the launcher logs the worker that did not answer).
    const survivor = [...agents].find(([pid]) => pid !== replacement?.[0])?.[1] ?? workerA.agent;
    const signIn = await send(base, survivor, {
      method: "POST",
      path: "/api/v1/auth/anonymous",
      headers: { "X-API-Key": project.clientKey },
    });
    const headers = { "X-API-Key": project.clientKey, Authorization: `Bearer ${signIn.body.accessToken as string}` };
    const started = performance.now();
    expect((await send(base, survivor, { method: "POST", path: "/api/v1/auth/logout", headers, timeoutMs: 30_000 })).status).toBe(204);
    expect(performance.now() - started).toBeLessThan(10_000);
    for (const agent of agents.values()) agent.destroy();
    workerA.agent.destroy();
    workerB.agent.destroy();
  });

  it("gives up on a crash loop: five worker deaths within 30 s stop everything with exit code 1", async () => {
    const primary = app.child.pid ?? 0;
    const seen = new Set<number>();
    for (let deaths = 1; app.child.exitCode === null && deaths <= 6; deaths++) {
      let pid: number | undefined;
      await until(
        "a worker to kill",
        () => {
          pid = [...workersOf(primary).keys()].find((p) => !seen.has(p));
          return pid !== undefined || app.child.exitCode !== null;
        },
        20_000,
      );
      if (pid === undefined) break;
      seen.add(pid);
      process.kill(pid, "SIGKILL");
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await app.exited).toBe(1);
    expect(app.output()).toMatch(/worker deaths within 30 s, giving up/);
    await until("every worker gone", () => [...seen, ...workersOf(primary).keys()].every((p) => !isRunning(p)), 15_000);
  });
});

it("names a bad WEB_CONCURRENCY and stops before starting anything", async () => {
  for (const value of ["0", "65", "two", "1.5"]) {
    const failure = await startApp({ WEB_CONCURRENCY: value, DATA_DIR: tempDir(), PORT: String(await freePort()) }, 60_000).then(
      async (app) => {
        await app.stop();
        return "started";
      },
      (error: Error) => String(error),
    );
    expect(failure).toContain(`WEB_CONCURRENCY must be a whole number of worker processes from 1 to 64, not "${value}"`);
    expect(failure).not.toContain("embedded Postgres on");
  }
}, 60_000);

describe("SIGTERM with the embedded Postgres", () => {
  it("drains every worker, stops Postgres after them and exits 0, leaving no process behind", async () => {
    // Two different ports (a port just released can be handed out again).
    const pgPort = await freePort();
    let port = await freePort();
    while (port === pgPort) port = await freePort();
    const app = await launch({
      DATABASE_URL: undefined,
      JWT_SECRET: undefined,
      PORT: String(port),
      EMBEDDED_POSTGRES_PORT: String(pgPort),
      PUBLIC_URL: undefined,
    });
    const dataDir = dataDirs[dataDirs.length - 1] ?? "";
    const postmaster = Number.parseInt(readFileSync(path.join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0] ?? "", 10);
    const workers = [...workersOf(app.child.pid ?? 0).keys()];
    expect(workers.length).toBe(2);
    expect(isRunning(postmaster)).toBe(true);
    expect(await app.stop()).toBe(0);
    expect(app.output()).toContain("SIGTERM: shutting down 2 workers");
    expect(app.output()).toContain("embedded Postgres stopped");
    // Postgres stopped after the workers had closed their pools: no "terminating connection" in their logs.
    expect(app.output()).not.toMatch(/terminating connection|Connection terminated/);
    for (const pid of [...workers, postmaster]) expect(isRunning(pid)).toBe(false);
    expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
    expect(existsSync(path.join(dataDir, "launcher.pid"))).toBe(false);
  }, 60_000);
});
