import { createHmac, randomBytes } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { pool } from "@/server/db";
import type { QueueGroup } from "@/server/services/reports/operator";
import { encryptSecret, newSecret } from "@/server/services/webhooks/signing";
import { type ApiResponse, api, untilAnswered } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { caller, newOperator } from "../support/operators";

/**
 * Report floods over HTTP (issue 51): fresh accounts are free, addresses are not. The suite's app
 * trusts X-Forwarded-For (TRUST_PROXY), so each request names the address it comes from. The
 * limits: 30 new reports per hour from one address in a project (scope player-reports-address),
 * 20 per hour from new accounts against one player (player-reports-target); refusals store
 * nothing and announce nothing. The queue's "most" order counts established reporters once per
 * address and all new accounts together as one.
 */
type Refusal = { error: { code: string; details: { scope: string; limit: number; windowSeconds: number; retryAfterSeconds: number } } };

let address = 0;
/** An address no other test of the file uses (documentation range 203.0.113.0/24 and 198.51.100.0/24). */
const newAddress = () => {
  address += 1;
  return address < 250 ? `203.0.113.${address}` : `198.51.100.${address - 249}`;
};

const report = (project: TestProject, by: TestPlayer, targetId: string, ip: string, reason = "cheating") =>
  api<{ id: string; status: string }>("POST", `/api/v1/players/${targetId}/report`, {
    key: project.clientKey,
    token: by.accessToken,
    body: { reason },
    ip,
  });

const players = (project: TestProject, n: number) => Promise.all(Array.from({ length: n }, () => anonymousPlayer(project.clientKey)));

/** Accounts made two days ago: established reporters. */
async function established(project: TestProject, n: number): Promise<TestPlayer[]> {
  const made = await players(project, n);
  await pool().query("UPDATE players SET created_at = now() - interval '2 days' WHERE id = ANY($1)", [made.map((p) => p.playerId)]);
  return made;
}

/** A disabled endpoint subscribed to player.reported: the outbox then records every event (and nothing is delivered). */
async function recordEvents(project: TestProject) {
  await pool().query(
    `INSERT INTO webhook_endpoints (id, project_id, url, event_types, secret, enabled) VALUES (gen_random_uuid(), $1, $2, $3, $4, false)`,
    [project.projectId, "http://127.0.0.1:9/hook", ["player.reported"], encryptSecret(newSecret())],
  );
}

const count = async (sql: string, values: unknown[]) => (await pool().query<{ n: number }>(sql, values)).rows[0]?.n ?? -1;
const reportsOfProject = (project: TestProject) =>
  count("SELECT count(*)::int AS n FROM player_reports WHERE project_id = $1", [project.projectId]);
const eventsOfProject = (project: TestProject) =>
  count("SELECT count(*)::int AS n FROM webhook_events WHERE project_id = $1 AND type = 'player.reported'", [project.projectId]);

function expectRefused(res: ApiResponse, scope: string, limit: number) {
  expect(res.status, res.text).toBe(429);
  const { error } = res.body as unknown as Refusal;
  expect(error).toMatchObject({ code: "RATE_LIMITED", details: { scope, limit, windowSeconds: 3600 } });
  const retryAfter = Number(res.headers.get("retry-after"));
  // The oldest report of the window leaves it an hour after it was filed: within this test's minutes.
  expect(retryAfter).toBeGreaterThan(3000);
  expect(retryAfter).toBeLessThanOrEqual(3600);
  expect(error.details.retryAfterSeconds).toBe(retryAfter);
  expect(res.headers.get("ratelimit-policy")).toBe(`"${scope}";q=${limit};w=3600`);
}

describe("the limit per address", () => {
  let project: TestProject;
  let reporters: TestPlayer[];
  let targets: TestPlayer[];
  const flood = newAddress();

  beforeAll(async () => {
    project = await makeProject();
    await recordEvents(project);
    // Four fresh accounts, ten reports each at most (their own limit), over ten players: four each.
    [reporters, targets] = [await players(project, 4), await players(project, 10)];
  });

  it("refuses the 31st new report from one address across fresh accounts with Retry-After; nothing is stored or announced", async () => {
    const filings = reporters.flatMap((r) => targets.map((t) => [r, t] as const)).slice(0, 31);
    const answers: ApiResponse[] = [];
    for (const [r, t] of filings) answers.push(await report(project, r, t.playerId, flood));
    expect(answers.slice(0, 30).map((a) => a.status)).toEqual(Array(30).fill(202));
    const last = answers[30];
    if (!last) throw new Error("31 filings");
    expectRefused(last, "player-reports-address", 30);
    expect(await reportsOfProject(project)).toBe(30);
    expect(await eventsOfProject(project)).toBe(30);
  });

  it("a repeat of an open report from the spent address still updates it and counts nothing", async () => {
    const [r, t] = [reporters[0], targets[0]] as [TestPlayer, TestPlayer];
    const again = await report(project, r, t.playerId, flood, "abuse");
    expect(again.status, again.text).toBe(202);
    expect(await reportsOfProject(project)).toBe(30);
    expect(await eventsOfProject(project)).toBe(30);
  });

  it("another address is unaffected: the same account files from it", async () => {
    const [r, t] = [reporters[3], targets[9]] as [TestPlayer, TestPlayer];
    const res = await report(project, r, t.playerId, newAddress());
    expect(res.status, res.text).toBe(202);
    expect(await reportsOfProject(project)).toBe(31);
  });

  it("an IPv6 client is one address per /64: a rotated address inside it is refused the same", async () => {
    const own = await makeProject();
    const [reps, ts] = [await players(own, 3), await players(own, 10)];
    const filings = reps.flatMap((r) => ts.map((t) => [r, t] as const));
    for (const [i, [r, t]] of filings.entries()) {
      const res = await report(own, r, t.playerId, `2001:db8:51:4::${(i + 1).toString(16)}`);
      expect(res.status, res.text).toBe(202);
    }
    const [extra] = await players(own, 1);
    if (!extra) throw new Error("one player");
    expectRefused(await report(own, extra, ts[0]?.playerId ?? "", "2001:db8:51:4:abcd::1"), "player-reports-address", 30);
    expect((await report(own, extra, ts[0]?.playerId ?? "", "2001:db8:51:5::1")).status).toBe(202);
  });

  it("40 filings at once from one address by 40 accounts against 40 players: exactly 30 are stored, the others refused", async () => {
    const own = await makeProject();
    // No reporter or reported player in common: only the address's lock keeps the count and the insert apart.
    const [reps, ts] = [await players(own, 40), await players(own, 40)];
    const at = newAddress();
    const answers = await Promise.all(reps.map((r, i) => untilAnswered(() => report(own, r, ts[i]?.playerId ?? "", at))));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(30).fill(202), ...Array(10).fill(429)]);
    for (const refused of answers.filter((a) => a.status === 429))
      expect((refused.body as unknown as Refusal).error.details.scope).toBe("player-reports-address");
    expect(await reportsOfProject(own)).toBe(30);
  });

  it("keeps the address only as a 16-byte keyed hash, the same for one address and another for another", async () => {
    const { rows } = await pool().query<{ hash: Buffer | null }>(
      "SELECT reporter_address_hash AS hash FROM player_reports WHERE project_id = $1 ORDER BY created_at",
      [project.projectId],
    );
    const hashes = rows.map((r) => r.hash?.toString("hex"));
    expect(rows.every((r) => r.hash?.length === 16)).toBe(true);
    expect(new Set(hashes.slice(0, 30)).size).toBe(1);
    expect(hashes[30]).not.toBe(hashes[0]);
    // HMAC-SHA256 under the app's JWT secret of the project and the address, the first 16 bytes.
    const keyed = createHmac("sha256", inject("jwtSecret")).update(`player-report-address:${project.projectId}:${flood}`).digest();
    expect(hashes[0]).toBe(keyed.subarray(0, 16).toString("hex"));
  });
});

describe("the limit per reported player", () => {
  let project: TestProject;
  let victim: TestPlayer;
  let fresh: TestPlayer[];

  beforeAll(async () => {
    project = await makeProject();
    await recordEvents(project);
    victim = await anonymousPlayer(project.clientKey);
  });

  it("refuses the 21st report of the hour from a new account, each from its own address; established reporters still report", async () => {
    fresh = await players(project, 21);
    for (const r of fresh.slice(0, 20)) expect((await report(project, r, victim.playerId, newAddress())).status).toBe(202);
    const last = fresh[20];
    if (!last) throw new Error("21 players");
    expectRefused(await report(project, last, victim.playerId, newAddress()), "player-reports-target", 20);
    expect(await eventsOfProject(project)).toBe(20);
    const [veteran] = await established(project, 1);
    if (!veteran) throw new Error("one player");
    const res = await report(project, veteran, victim.playerId, newAddress());
    expect(res.status, res.text).toBe(202);
    expect(await reportsOfProject(project)).toBe(21);
    expect(await eventsOfProject(project)).toBe(21);
  });

  it("a repeat of an open report against the player still updates it, and counts nothing", async () => {
    const again = await report(project, fresh[0] as TestPlayer, victim.playerId, newAddress(), "abuse");
    expect(again.status, again.text).toBe(202);
    expect(await reportsOfProject(project)).toBe(21);
    expect(await eventsOfProject(project)).toBe(21);
  });

  it("40 new accounts at once, each from its own address, against one player: exactly 20 are stored", async () => {
    const own = await makeProject();
    const [target] = await players(own, 1);
    const reps = await players(own, 40);
    const answers = await Promise.all(reps.map((r) => untilAnswered(() => report(own, r, target?.playerId ?? "", newAddress()))));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(20).fill(202), ...Array(20).fill(429)]);
    for (const refused of answers.filter((a) => a.status === 429))
      expect((refused.body as unknown as Refusal).error.details.scope).toBe("player-reports-target");
    expect(await reportsOfProject(own)).toBe(20);
  });

  it("another player is unaffected", async () => {
    const [r, other] = await players(project, 2);
    if (!r || !other) throw new Error("two players");
    expect((await report(project, r, other.playerId, newAddress())).status).toBe(202);
  });
});

/** A case's counts, in the order reports, reporters, weight, established, new accounts. */
const ranking = (g: QueueGroup) => [g.reports, g.reporters, g.weight, g.established, g.newAccounts];

describe("the queue's ranking", () => {
  it("counts a flood of new accounts from one address as 1, below a case with 3 established reporters from 3 addresses", async () => {
    const project = await makeProject();
    const owner = await newOperator("ADMIN", project.projectId);
    const [victim, cheater] = await players(project, 2);
    if (!victim || !cheater) throw new Error("two players");
    const flood = newAddress();
    for (const r of await players(project, 12)) expect((await report(project, r, victim.playerId, flood)).status).toBe(202);
    for (const r of await established(project, 3)) expect((await report(project, r, cheater.playerId, newAddress())).status).toBe(202);

    const { groups } = await caller(owner).moderation.queue({ projectId: project.projectId, sort: "most" });
    expect(groups.map((g) => g.playerId)).toEqual([cheater.playerId, victim.playerId]);
    expect(groups.map(ranking)).toEqual([
      [3, 3, 3, { reporters: 3, addresses: 3, unrecorded: 0 }, { reporters: 0, addresses: 0, unrecorded: 0 }],
      [12, 12, 1, { reporters: 0, addresses: 0, unrecorded: 0 }, { reporters: 12, addresses: 1, unrecorded: 0 }],
    ]);
    expect(groups.map((g) => g.why)).toEqual([
      "3 reports from 3 reporters, counted as 3: 3 established accounts from 3 addresses",
      "12 reports from 12 reporters, counted as 1: 12 new accounts from 1 address",
    ]);
    // Newest first is unchanged: the cheater's reports came last.
    const newest = await caller(owner).moderation.queue({ projectId: project.projectId });
    expect(newest.groups.map((g) => g.playerId)).toEqual([cheater.playerId, victim.playerId]);
  });

  it("established reporters sharing an address count once; reports without a recorded address count one each; new accounts add at most one", async () => {
    const project = await makeProject();
    const owner = await newOperator("ADMIN", project.projectId);
    const [target] = await players(project, 1);
    if (!target) throw new Error("one player");
    const household = newAddress();
    const [a, b, c, d] = await established(project, 4);
    for (const r of [a, b]) expect((await report(project, r as TestPlayer, target.playerId, household)).status).toBe(202);
    for (const r of [c, d]) expect((await report(project, r as TestPlayer, target.playerId, newAddress())).status).toBe(202);
    // c and d filed before addresses were recorded: no hash.
    await pool().query("UPDATE player_reports SET reporter_address_hash = NULL WHERE reporter_id = ANY($1)", [[c?.playerId, d?.playerId]]);
    for (const r of await players(project, 3)) expect((await report(project, r, target.playerId, newAddress())).status).toBe(202);

    const { groups } = await caller(owner).moderation.queue({ projectId: project.projectId, sort: "most" });
    // The household, c, d, and the new accounts together.
    expect(groups.map(ranking)).toEqual([
      [7, 7, 4, { reporters: 4, addresses: 1, unrecorded: 2 }, { reporters: 3, addresses: 3, unrecorded: 0 }],
    ]);
    expect(groups[0]).toMatchObject({
      why: "7 reports from 7 reporters, counted as 4: 4 established accounts from 1 address, 2 with no recorded address; 3 new accounts from 3 addresses",
    });
  });

  it("a report a server key files for a player records no address (the game server's is not the player's)", async () => {
    const project = await makeProject();
    const [r, t] = await players(project, 2);
    if (!r || !t) throw new Error("two players");
    const res = await api<{ id: string }>("POST", `/api/v1/players/${t.playerId}/report`, {
      key: project.serverKey,
      headers: { "X-Player-Id": r.playerId },
      body: { reason: "spam" },
      ip: `198.51.100.${randomBytes(1)[0]}`,
    });
    expect(res.status, res.text).toBe(202);
    const { rows } = await pool().query("SELECT reporter_address_hash FROM player_reports WHERE id = $1", [res.body.id]);
    expect(rows).toEqual([{ reporter_address_hash: null }]);
  });
});
