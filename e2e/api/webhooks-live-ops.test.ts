import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import { encryptSecret, newSecret } from "@/server/services/webhooks/signing";
import { api, definitionCachesExpired } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { until } from "../support/launch.mjs";
import { caller, newOperator } from "../support/operators";
import { experimentOnKey, PRICE_TEST } from "../support/remote-config";
import { documented } from "../support/webhooks";

/**
 * The live-ops webhook events over HTTP, delivered by the suite's app to a real receiver on
 * 127.0.0.1 that verifies each signature: `experiment.assigned` once per player and experiment
 * however often (and however concurrently) GET /config shows the variant, and `player.reported`
 * for a new report only. "Only once" is read from the outbox (webhook_events), which the request
 * that wrote an event has committed before it answered: no waiting for something not to arrive.
 */
type Received = { verified: boolean; body: { type: string; data: Record<string, unknown> } };

const receivers: Array<() => void> = [];
afterAll(() => {
  for (const close of receivers) close();
});

/** A receiver verifying every delivery with the endpoint's secret, and the endpoint (created before any event of the project). */
async function hookFor(projectId: string, eventTypes: string[]) {
  const secret = newSecret();
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let verified = true;
      try {
        new Webhook(secret).verify(body, headers);
      } catch {
        verified = false;
      }
      received.push({ verified, body: JSON.parse(body) });
      res.writeHead(200).end("thanks");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receivers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  await pool().query(
    `INSERT INTO webhook_endpoints (id, project_id, url, event_types, secret) VALUES (gen_random_uuid(), $1, $2, $3, $4)`,
    [projectId, url, eventTypes, encryptSecret(secret)],
  );
  return received;
}

const stored = async (projectId: string, type: string) =>
  (
    await pool().query<{ player_id: string; data: Record<string, unknown> }>(
      "SELECT player_id, data FROM webhook_events WHERE project_id = $1 AND type = $2 ORDER BY id",
      [projectId, type],
    )
  ).rows;

describe("experiment.assigned", () => {
  let project: TestProject;
  let received: Received[];
  const getConfig = (player: TestPlayer) =>
    api<{ assignments: Record<string, string> }>("GET", "/api/v1/config", { key: project.clientKey, token: player.accessToken });

  beforeAll(async () => {
    project = await makeProject();
    received = await hookFor(project.projectId, ["experiment.assigned"]);
    const rc = caller(await newOperator("OWNER", project.projectId)).remoteConfig;
    const { projectId } = project;
    await experimentOnKey(rc, { projectId, ...PRICE_TEST, experiment: { ...PRICE_TEST.experiment, name: "Potion price" }, reason: "test" });
    await definitionCachesExpired();
  });

  it("is delivered once when a player is first shown a variant: 10 parallel GETs and a later one write one event", async () => {
    const player = await anonymousPlayer(project.clientKey);
    const answers = await Promise.all(Array.from({ length: 10 }, () => getConfig(player)));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    const variant = answers[0]?.body.assignments["price-test"];
    expect(["cheap", "dear"]).toContain(variant);
    expect((await getConfig(player)).body.assignments["price-test"]).toBe(variant);

    const events = await stored(project.projectId, "experiment.assigned");
    expect(events.map((e) => e.player_id)).toEqual([player.playerId]);
    const { rows } = await pool().query<{ assigned_at: Date }>(
      "SELECT assigned_at FROM experiment_assignments WHERE project_id = $1 AND player_id = $2",
      [project.projectId, player.playerId],
    );
    expect(events[0]?.data).toEqual({
      experimentId: "price-test",
      experimentName: "Potion price",
      variant,
      playerId: player.playerId,
      assignedAt: rows[0]?.assigned_at.toISOString(),
    });

    await until("the delivery", () => received.some((r) => r.body.data.playerId === player.playerId), 15_000);
    const mine = received.filter((r) => r.body.data.playerId === player.playerId);
    expect(mine.map((r) => [r.body.type, r.verified])).toEqual([["experiment.assigned", true]]);
    expect(documented("experiment.assigned", mine[0]?.body.data)).toBe(true);
    expect(mine[0]?.body.data).toEqual(events[0]?.data);
  });

  it("each new player is announced once; players who already have their variant are not announced again", async () => {
    const a = await anonymousPlayer(project.clientKey);
    const b = await anonymousPlayer(project.clientKey);
    for (const p of [a, b, a, b, a]) expect((await getConfig(p)).status).toBe(200);
    const events = await stored(project.projectId, "experiment.assigned");
    expect(events.filter((e) => e.player_id === a.playerId)).toHaveLength(1);
    expect(events.filter((e) => e.player_id === b.playerId)).toHaveLength(1);
  });
});

describe("player.reported", () => {
  let project: TestProject;
  let received: Received[];
  let target: TestPlayer;
  const report = (by: TestPlayer, targetId: string, body: unknown) =>
    api<{ id: string; status: string }>("POST", `/api/v1/players/${targetId}/report`, {
      key: project.clientKey,
      token: by.accessToken,
      body,
    });

  beforeAll(async () => {
    project = await makeProject();
    received = await hookFor(project.projectId, ["player.reported"]);
    target = await anonymousPlayer(project.clientKey);
  });

  it("a new report is delivered with its id, both players, the reason, the note and its time", async () => {
    const reporter = await anonymousPlayer(project.clientKey);
    const res = await report(reporter, target.playerId, { reason: "cheating", note: "Scores 10x anyone else's" });
    expect(res.status, res.text).toBe(202);
    const { rows } = await pool().query<{ created_at: Date }>("SELECT created_at FROM player_reports WHERE id = $1", [res.body.id]);
    const expected = {
      reportId: res.body.id,
      playerId: target.playerId,
      reporterId: reporter.playerId,
      reason: "cheating",
      note: "Scores 10x anyone else's",
      createdAt: rows[0]?.created_at.toISOString(),
    };
    expect((await stored(project.projectId, "player.reported")).filter((e) => e.data.reportId === res.body.id)).toEqual([
      { player_id: target.playerId, data: expected },
    ]);
    await until("the delivery", () => received.some((r) => r.body.data.reportId === res.body.id), 15_000);
    const delivered = received.filter((r) => r.body.data.reportId === res.body.id);
    expect(delivered.map((r) => [r.body.type, r.verified])).toEqual([["player.reported", true]]);
    expect(delivered[0]?.body.data).toEqual(expected);
    expect(documented("player.reported", delivered[0]?.body.data)).toBe(true);
  });

  it("reporting again while the report is open updates it and sends nothing; a refused report sends nothing", async () => {
    const reporter = await anonymousPlayer(project.clientKey);
    const first = await report(reporter, target.playerId, { reason: "spam" });
    const again = await report(reporter, target.playerId, { reason: "abuse", note: "Now insults too" });
    expect([first.status, again.status]).toEqual([202, 202]);
    expect(again.body.id).toBe(first.body.id);
    expect((await report(reporter, target.playerId, { reason: "not-a-reason" })).status).toBe(400);
    expect((await report(reporter, reporter.playerId, { reason: "spam" })).status).toBe(400);
    const mine = (await stored(project.projectId, "player.reported")).filter((e) => e.data.reporterId === reporter.playerId);
    // The event is the report as created; a note absent then is absent from the payload.
    expect(mine.map((e) => e.data)).toEqual([
      {
        reportId: first.body.id,
        playerId: target.playerId,
        reporterId: reporter.playerId,
        reason: "spam",
        createdAt: expect.any(String),
      },
    ]);
    expect(documented("player.reported", mine[0]?.data)).toBe(true);
  });
});
