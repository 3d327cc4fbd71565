import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { pool, prisma } from "@/server/db";
import { AppError } from "@/server/errors";
import type { SessionOperator } from "@/server/identity/operator";
import { instanceHealthAs, type ProjectHealth, projectHealthAs } from "@/server/services/health";
import type { HealthRange } from "@/server/services/health/schemas";
import { upsertOperator } from "@/server/services/operators";
import { pruneUsage } from "@/server/usage";
import { api } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";

/**
 * The dashboard's health view counts what the game API answered: the app records every answer of
 * a keyed request in memory and writes it every USAGE_FLUSH_MS (0.1 s in the suite), and the
 * health services read it back. Known requests go through the real app; the test polls the
 * service until its numbers equal what the requests got.
 */
type Tally = { total: number; byStatus: Map<number, number>; byCode: Map<string, number> };
const tally = (): Tally => ({ total: 0, byStatus: new Map(), byCode: new Map() });

async function send(t: Tally, method: string, path: string, o: Parameters<typeof api>[2]): Promise<number> {
  const res = await api(method, path, o);
  t.total += 1;
  t.byStatus.set(res.status, (t.byStatus.get(res.status) ?? 0) + 1);
  const code = (res.body as { error?: { code?: string } } | null)?.error?.code;
  if (code) t.byCode.set(code, (t.byCode.get(code) ?? 0) + 1);
  return res.status;
}

const statusCount = (t: Tally, test: (s: number) => boolean) => [...t.byStatus].filter(([s]) => test(s)).reduce((n, [, c]) => n + c, 0);

let project: TestProject;
let other: TestProject;
let player: TestPlayer;
const seen = tally();
const seenOther = tally();
const operators = new Map<"viewer" | "stranger" | "admin", SessionOperator>();
const as = (who: "viewer" | "stranger" | "admin") => ({ operator: operators.get(who) ?? null, requestId: `health-${who}` });

async function healthOnceCounted(range: HealthRange, requests: number): Promise<ProjectHealth> {
  let last: ProjectHealth | undefined;
  await expect
    .poll(
      async () => {
        last = await projectHealthAs(as("viewer"), { projectId: project.projectId, range });
        return last.totals.requests;
      },
      { timeout: 10_000, interval: 100 },
    )
    .toBe(requests);
  if (!last) throw new Error("no answer");
  return last;
}

beforeAll(async () => {
  // A budget of 8 requests per window: the last requests below are refused with 429 RATE_LIMITED.
  project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 8 });
  other = await makeProject();
  const op = async (role: "VIEWER" | null, isInstanceAdmin = false): Promise<SessionOperator> => {
    const email = `health-${randomBytes(4).toString("hex")}@studio.test`;
    const created = await upsertOperator({ email, name: email, password: "a long operator passphrase 9", isInstanceAdmin });
    if (role) await prisma().projectMember.create({ data: { projectId: project.projectId, operatorId: created.id, role } });
    return { ...created, isInstanceAdmin };
  };
  operators.set("viewer", await op("VIEWER"));
  operators.set("stranger", await op(null));
  operators.set("admin", await op(null, true));

  player = await anonymousPlayer(project.clientKey);
  seen.total += 1;
  seen.byStatus.set(200, 1);
  for (let i = 0; i < 3; i++) await send(seen, "GET", "/api/v1/players/me", { key: project.clientKey, token: player.accessToken });
  for (let i = 0; i < 2; i++) await send(seen, "GET", "/api/v1/leaderboards/none", { key: project.clientKey });
  // Then until the budget refuses one (429 RATE_LIMITED), at least 6 more. Windows follow the
  // clock: on a busy machine these requests can straddle a boundary and all fit (CI once saw no
  // 429), so a few more are sent then; the tally counts each one either way.
  for (let i = 0; i < 6 || !seen.byCode.has("RATE_LIMITED"); i++) {
    if (i === 40) throw new Error("a budget of 8 per window refused none of 40 requests");
    await send(seen, "GET", "/api/v1/leaderboards/none", { key: project.clientKey });
  }
  for (let i = 0; i < 5; i++) await send(seenOther, "GET", "/api/v1/leaderboards/elsewhere", { key: other.serverKey });
});

describe("the project health view", () => {
  it("counts every answer of the project's requests by status class, rate-limited ones apart", async () => {
    expect(seen.byCode.get("LEADERBOARD_NOT_FOUND")).toBeGreaterThan(0);
    expect(seen.byCode.get("RATE_LIMITED")).toBeGreaterThan(0);
    const health = await healthOnceCounted("1h", seen.total);
    const limited = seen.byCode.get("RATE_LIMITED") ?? 0;
    expect(health.totals.byClass).toEqual({
      "2xx": statusCount(seen, (s) => s < 300),
      "3xx": 0,
      "4xx": statusCount(seen, (s) => s >= 400 && s < 500) - limited,
      "5xx": 0,
      limited,
    });
    expect(health.totals.errors).toBe(seen.byCode.get("LEADERBOARD_NOT_FOUND"));
    expect(health.totals.errorRate).toBeCloseTo((seen.byCode.get("LEADERBOARD_NOT_FOUND") ?? 0) / seen.total);
    expect(health.series).toHaveLength(60);
    expect(health.series.reduce((n, p) => n + p["2xx"] + p["3xx"] + p["4xx"] + p["5xx"] + p.limited, 0)).toBe(seen.total);
    expect(health.limitPerMinute).toBe(8);
  });

  it("names the top error codes and routes, with latency percentiles in order", async () => {
    const health = await healthOnceCounted("1h", seen.total);
    expect(health.topCodes).toEqual(
      expect.arrayContaining([
        { code: "LEADERBOARD_NOT_FOUND", status: 404, count: seen.byCode.get("LEADERBOARD_NOT_FOUND") },
        { code: "RATE_LIMITED", status: 429, count: seen.byCode.get("RATE_LIMITED") },
      ]),
    );
    expect(health.topCodes).toHaveLength(seen.byCode.size);
    const board = health.topRoutes.find((r) => r.route === "/api/v1/leaderboards/{id}");
    expect(board).toMatchObject({ method: "GET", requests: 8, errors: seen.byCode.get("LEADERBOARD_NOT_FOUND") });
    expect(health.topRoutes.map((r) => `${r.method} ${r.route}`).sort()).toEqual([
      "GET /api/v1/leaderboards/{id}",
      "GET /api/v1/players/{id}",
      "POST /api/v1/auth/anonymous",
    ]);
    const { p50, p95, p99 } = health.totals;
    expect(p50).toBeGreaterThan(0);
    expect(p95).toBeGreaterThanOrEqual(p50 ?? 0);
    expect(p99).toBeGreaterThanOrEqual(p95 ?? 0);
  });

  it("the hour rows say the same for the last 24 hours and 7 days", async () => {
    for (const range of ["24h", "7d"] as const) {
      const health = await healthOnceCounted(range, seen.total);
      expect(health.series).toHaveLength(range === "24h" ? 24 : 168);
      expect(health.totals.byClass.limited).toBe(seen.byCode.get("RATE_LIMITED"));
      expect(health.stepSeconds).toBe(3600);
    }
  });

  it("a player's requests count them active today; signing up counts them new today", async () => {
    const health = await healthOnceCounted("24h", seen.total);
    const today = new Date().toISOString().slice(0, 10);
    expect(health.players.total).toBe(1);
    expect(health.players.days).toHaveLength(30);
    expect(health.players.days.at(-1)).toEqual({ day: today, new: 1, active: 1 });
    expect(health.players.days.slice(0, -1).every((d) => d.new === 0 && d.active === 0)).toBe(true);
  });

  it("another project's requests are not in it", async () => {
    const health = await healthOnceCounted("1h", seen.total);
    expect(health.topRoutes.every((r) => r.requests <= seen.total)).toBe(true);
    await expect
      .poll(async () => (await projectHealthAs(as("admin"), { projectId: other.projectId, range: "1h" })).totals.requests, {
        timeout: 10_000,
      })
      .toBe(seenOther.total);
    const otherHealth = await projectHealthAs(as("admin"), { projectId: other.projectId, range: "1h" });
    expect(otherHealth.topCodes).toEqual([{ code: "LEADERBOARD_NOT_FOUND", status: 404, count: seenOther.total }]);
    expect(otherHealth.players.total).toBe(0);
  });

  it("a viewer may read it; an operator who is not a member gets NOT_FOUND", async () => {
    await expect(projectHealthAs(as("viewer"), { projectId: project.projectId, range: "1h" })).resolves.toBeDefined();
    const refused = await projectHealthAs(as("stranger"), { projectId: project.projectId, range: "1h" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("NOT_FOUND");
  });
});

describe("the instance health view", () => {
  it("is for instance admins only: anyone else gets FORBIDDEN", async () => {
    for (const who of ["viewer", "stranger"] as const) {
      const refused = await instanceHealthAs(as(who), { range: "1h" }).catch((e: unknown) => e);
      expect((refused as AppError).code).toBe("FORBIDDEN");
    }
  });

  it("adds up every project and lists each with its requests and errors", async () => {
    await healthOnceCounted("1h", seen.total);
    const health = await instanceHealthAs(as("admin"), { range: "1h" });
    const mine = health.projects.find((p) => p.projectId === project.projectId);
    const theirs = health.projects.find((p) => p.projectId === other.projectId);
    expect(mine).toMatchObject({ requests: seen.total, errors: seen.byCode.get("LEADERBOARD_NOT_FOUND") });
    expect(theirs).toMatchObject({ requests: seenOther.total, errors: seenOther.total });
    // Other test files share the instance: its totals hold at least these two projects.
    expect(health.totals.requests).toBeGreaterThanOrEqual(seen.total + seenOther.total);
    expect(health.players.total).toBeGreaterThanOrEqual(1);
  });
});

describe("retention", () => {
  it("the hourly maintenance deletes minute rows after 2 hours, hour rows after 8 days, active days after 32", async () => {
    const scratch = await makeProject();
    const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000);
    const row = `INSERT INTO request_stats (project_id, resolution, bucket, route, method, status, code, count, latency_buckets)
                 VALUES ($1, $2::"StatResolution", $3, '/api/v1/x', 'GET', 200, '', 1, '{1}')`;
    await pool().query(row, [scratch.projectId, "MINUTE", ago(1)]);
    await pool().query(row, [scratch.projectId, "MINUTE", ago(3)]);
    await pool().query(row, [scratch.projectId, "HOUR", ago(7 * 24)]);
    await pool().query(row, [scratch.projectId, "HOUR", ago(9 * 24)]);
    const day = `INSERT INTO player_active_days (project_id, day, player_id) VALUES ($1, (now() AT TIME ZONE 'UTC')::date - $2::int, gen_random_uuid())`;
    await pool().query(day, [scratch.projectId, 31]);
    await pool().query(day, [scratch.projectId, 33]);
    await pruneUsage();
    const left = await pool().query<{ resolution: string; n: number }>(
      "SELECT resolution::text, count(*)::int AS n FROM request_stats WHERE project_id = $1 GROUP BY 1 ORDER BY 1",
      [scratch.projectId],
    );
    expect(left.rows).toEqual([
      { resolution: "HOUR", n: 1 },
      { resolution: "MINUTE", n: 1 },
    ]);
    const days = await pool().query("SELECT 1 FROM player_active_days WHERE project_id = $1", [scratch.projectId]);
    expect(days.rowCount).toBe(1);
  });
});
