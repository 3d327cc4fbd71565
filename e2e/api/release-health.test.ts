import { beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import type { ProjectHealth } from "@/server/services/health";
import { upsertKeyAs } from "@/server/services/remote-config/operator";
import { pruneUsage } from "@/server/usage";
import { api } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { caller, ctx, newOperator, trpcRefusal } from "../support/operators";

/**
 * Release health: the project health procedure splits the game API's answers by the client's
 * X-Client-Version and X-Platform (absent or malformed: ''), counts rate-limited answers apart
 * from errors, compares the range with the one before it, and marks config changes. Requests go
 * through the real app; the test polls the procedure until its counts equal what the requests got
 * (the app writes its counts every USAGE_FLUSH_MS).
 */
type Tally = { requests: number; errors: number; limited: number };
const sent = new Map<string, Tally>();
const pairKey = (version: string, platform: string) => `${version}|${platform}`;

async function send(pair: [string, string], client: { version?: string; platform?: string }, method: string, path: string, token?: string) {
  const headers: Record<string, string> = {};
  if (client.version !== undefined) headers["X-Client-Version"] = client.version;
  if (client.platform !== undefined) headers["X-Platform"] = client.platform;
  const res = await api(method, path, { key: project.clientKey, token, headers });
  const code = (res.body as { error?: { code?: string } } | null)?.error?.code;
  const t = sent.get(pairKey(...pair)) ?? { requests: 0, errors: 0, limited: 0 };
  t.requests += 1;
  if (code === "RATE_LIMITED") t.limited += 1;
  else if (res.status >= 400) t.errors += 1;
  sent.set(pairKey(...pair), t);
  return res;
}

let project: TestProject;
let player: TestPlayer;
let viewer: SessionOperator;
let stranger: SessionOperator;
const total = () => [...sent.values()].reduce((n, t) => n + t.requests, 0);

async function healthOnceCounted(): Promise<ProjectHealth> {
  let last: ProjectHealth | undefined;
  await expect
    .poll(
      async () => {
        last = await caller(viewer).health.project({ projectId: project.projectId, range: "1h" });
        return last.releases.rows.reduce((n, r) => n + r.current.requests, 0);
      },
      { timeout: 15_000, interval: 100 },
    )
    .toBe(total());
  if (!last) throw new Error("no answer");
  return last;
}

beforeAll(async () => {
  // A budget of 10 requests per window: once spent, answers are 429 RATE_LIMITED.
  project = await makeProject({ plan: "ENTERPRISE", customRateLimit: 10 });
  viewer = await newOperator("VIEWER", project.projectId);
  stranger = await newOperator(null, project.projectId);
  const admin = await newOperator("ADMIN", project.projectId);
  player = await anonymousPlayer(project.clientKey);
  sent.set(pairKey("", ""), { requests: 1, errors: 0, limited: 0 });

  const ios = { version: "1.4.2", platform: "ios" };
  const android = { version: "2.0.0", platform: "android" };
  for (let i = 0; i < 2; i++) await send(["1.4.2", "ios"], ios, "GET", "/api/v1/players/me", player.accessToken);
  for (let i = 0; i < 2; i++) await send(["1.4.2", "ios"], ios, "GET", "/api/v1/leaderboards/none");
  await send(["2.0.0", "android"], android, "GET", "/api/v1/players/me", player.accessToken);
  // Malformed values are counted as '' (unknown), never refused.
  expect(
    (await send(["", ""], { version: "1.0 beta", platform: "Android OS!" }, "GET", "/api/v1/players/me", player.accessToken)).status,
  ).toBe(200);
  await send(["", "ios"], { version: "1".repeat(33), platform: "ios" }, "GET", "/api/v1/players/me", player.accessToken);
  // Android spends the rest of the budget, then is refused.
  for (let i = 0; i < 30 && (sent.get(pairKey("2.0.0", "android"))?.limited ?? 0) < 3; i++)
    await send(["2.0.0", "android"], android, "GET", "/api/v1/leaderboards/none");

  // The range before the last hour: 1.4.2 on iOS answered 10 times with 5 errors, and 1.3.0 only then.
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  const before = new Date(minute - 90 * 60_000);
  const row = `INSERT INTO release_stats (project_id, resolution, bucket, client_version, platform, count, errors, limited, latency_buckets)
               VALUES ($1, 'MINUTE', $2, $3, $4, $5, $6, $7, $8::int[])`;
  await pool().query(row, [project.projectId, before, "1.4.2", "ios", 10, 5, 0, "{0,0,0,0,0,0,0,0,10}"]);
  await pool().query(row, [project.projectId, before, "1.3.0", "ios", 4, 0, 1, "{4}"]);
  // Two hours before: outside both ranges.
  await pool().query(row, [project.projectId, new Date(minute - 125 * 60_000), "1.4.2", "ios", 99, 99, 0, "{99}"]);

  // A config change: a marker on the chart.
  await upsertKeyAs(ctx(admin), {
    projectId: project.projectId,
    key: "shop.discount",
    type: "number",
    defaultValue: 0,
    description: "",
    reason: "weekend sale",
  });
});

describe("release health", () => {
  it("splits the answers by client version and platform, malformed values as unknown", async () => {
    const health = await healthOnceCounted();
    const rows = health.releases.rows.filter((r) => r.current.requests > 0);
    const got = Object.fromEntries(
      rows.map((r) => [
        pairKey(r.clientVersion, r.platform),
        { requests: r.current.requests, errors: r.current.errors, limited: r.current.limited },
      ]),
    );
    expect(got).toEqual(Object.fromEntries(sent));
    expect(Object.keys(got).sort()).toEqual(["1.4.2|ios", "2.0.0|android", "|", "|ios"]);
    // The busiest pair first.
    const counts = rows.map((r) => r.current.requests);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });

  it("counts rate-limited answers apart from errors", async () => {
    const health = await healthOnceCounted();
    const android = health.releases.rows.find((r) => r.clientVersion === "2.0.0" && r.platform === "android");
    const tally = sent.get(pairKey("2.0.0", "android"));
    expect(tally?.limited).toBeGreaterThanOrEqual(3);
    expect(android?.current.limited).toBe(tally?.limited);
    expect(android?.current.errors).toBe(tally?.errors);
    expect(android?.current.errorRate).toBeCloseTo((tally?.errors ?? 0) / (tally?.requests ?? 1));
    const ios = health.releases.rows.find((r) => r.clientVersion === "1.4.2" && r.platform === "ios");
    expect(ios?.current).toMatchObject({ errors: 2, limited: 0 });
    expect(ios?.current.p50).toBeGreaterThan(0);
    expect(ios?.current.p95).toBeGreaterThanOrEqual(ios?.current.p50 ?? 0);
  });

  it("compares the range with the one of equal length before it", async () => {
    const health = await healthOnceCounted();
    expect(Date.parse(health.releases.from) - Date.parse(health.releases.previousFrom)).toBe(60 * 60_000);
    const ios = health.releases.rows.find((r) => r.clientVersion === "1.4.2" && r.platform === "ios");
    expect(ios?.previous).toMatchObject({ requests: 10, errors: 5, errorRate: 0.5, limited: 0 });
    // Ten answers in (250, 500] ms before: the p95 of this hour is lower.
    expect(ios?.previous.p95).toBeCloseTo(487.5);
    expect(ios?.delta.requests).toBe((ios?.current.requests ?? 0) - 10);
    expect(ios?.delta.errorRate).toBeCloseTo((ios?.current.errorRate ?? 0) - 0.5);
    expect(ios?.delta.p95).toBeCloseTo((ios?.current.p95 ?? 0) - 487.5);
    const old = health.releases.rows.find((r) => r.clientVersion === "1.3.0");
    expect(old?.current.requests).toBe(0);
    expect(old?.previous).toMatchObject({ requests: 4, errors: 0, limited: 1 });
    expect(old?.delta.p95).toBeNull();
  });

  it("marks config changes in the range on the chart's buckets", async () => {
    const health = await healthOnceCounted();
    expect(health.markers).toEqual([
      expect.objectContaining({ kind: "remote-config", action: "remote_config.key.upsert", label: 'Config key "shop.discount" saved' }),
    ]);
    const [marker] = health.markers;
    expect(health.series.map((p) => p.start)).toContain(marker?.bucket);
    expect(Date.parse(marker?.at ?? "")).toBeGreaterThanOrEqual(Date.parse(marker?.bucket ?? ""));
  });

  it("the request totals still count rate-limited answers apart", async () => {
    const health = await healthOnceCounted();
    const limited = [...sent.values()].reduce((n, t) => n + t.limited, 0);
    const errors = [...sent.values()].reduce((n, t) => n + t.errors, 0);
    expect(health.totals.byClass.limited).toBe(limited);
    expect(health.totals.errors).toBe(errors);
  });

  it("an operator who is not a member gets NOT_FOUND", async () => {
    expect(await trpcRefusal(caller(stranger).health.project({ projectId: project.projectId, range: "1h" }))).toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("the hourly maintenance deletes release minute rows after 2 hours and hour rows after 15 days", async () => {
    const scratch = await makeProject();
    const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000);
    const row = `INSERT INTO release_stats (project_id, resolution, bucket, client_version, platform, count, latency_buckets)
                 VALUES ($1, $2::"StatResolution", $3, '1.0.0', 'ios', 1, '{1}')`;
    await pool().query(row, [scratch.projectId, "MINUTE", ago(1)]);
    await pool().query(row, [scratch.projectId, "MINUTE", ago(3)]);
    await pool().query(row, [scratch.projectId, "HOUR", ago(14 * 24)]);
    await pool().query(row, [scratch.projectId, "HOUR", ago(16 * 24)]);
    await pruneUsage();
    const left = await pool().query<{ resolution: string; n: number }>(
      "SELECT resolution::text, count(*)::int AS n FROM release_stats WHERE project_id = $1 GROUP BY 1 ORDER BY 1",
      [scratch.projectId],
    );
    expect(left.rows).toEqual([
      { resolution: "HOUR", n: 1 },
      { resolution: "MINUTE", n: 1 },
    ]);
  });
});
