import { describe, expect, it } from "vitest";
import { pool, prisma } from "@/server/db";
import { pruneAuthTables } from "@/server/maintenance";
import { pruneSupportRecords } from "@/server/services/retention";
import { eventId } from "@/server/services/webhooks/events";
import { pruneWebhookOutbox } from "@/server/services/webhooks/retention";
import { anonymousPlayer, makeProject } from "../support/fixtures";

describe("auth table housekeeping", () => {
  it("deletes sessions ended over a week ago and used refresh tokens over a week old, and nothing live", async () => {
    const project = await makeProject();
    const [expired, revoked, live, rotated] = await Promise.all([1, 2, 3, 4].map(() => anonymousPlayer(project.clientKey)));
    const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000);
    const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000);
    await prisma().session.updateMany({ where: { playerId: expired?.playerId }, data: { expiresAt: eightDaysAgo } });
    await prisma().session.updateMany({ where: { playerId: revoked?.playerId }, data: { revokedAt: eightDaysAgo } });
    await prisma().refreshToken.updateMany({ where: { session: { playerId: rotated?.playerId } }, data: { usedAt: eightDaysAgo } });
    await prisma().session.updateMany({ where: { playerId: live?.playerId }, data: { revokedAt: sixDaysAgo } });

    await pruneAuthTables();

    const left = async (playerId: string | undefined) => prisma().session.count({ where: { playerId } });
    expect(await left(expired?.playerId)).toBe(0);
    expect(await left(revoked?.playerId)).toBe(0);
    expect(await left(live?.playerId)).toBe(1);
    expect(await left(rotated?.playerId)).toBe(1);
    expect(await prisma().refreshToken.count({ where: { session: { playerId: rotated?.playerId } } })).toBe(0);
    expect(await prisma().refreshToken.count({ where: { session: { playerId: live?.playerId } } })).toBe(1);
  });

  it("runs on one instance at a time: skips while another holds the lock, and holds none after it (transaction-scoped, pooler-safe)", async () => {
    const project = await makeProject();
    const expired = await anonymousPlayer(project.clientKey);
    await prisma().session.updateMany({
      where: { playerId: expired.playerId },
      data: { expiresAt: new Date(Date.now() - 8 * 86_400_000) },
    });
    const left = () => prisma().session.count({ where: { playerId: expired.playerId } });
    const other = await pool().connect();
    try {
      await other.query("BEGIN");
      await other.query("SELECT pg_advisory_xact_lock(72707370)");
      expect(await pruneAuthTables()).toEqual({ sessions: 0, refreshTokens: 0 });
      expect(await left()).toBe(1);
      await other.query("COMMIT");
    } finally {
      other.release();
    }
    await pruneAuthTables();
    expect(await left()).toBe(0);
    const { rows } = await pool().query("SELECT count(*)::int AS held FROM pg_locks WHERE locktype = 'advisory' AND objid = 72707370");
    expect(rows[0]?.held).toBe(0);
  });
});

describe("webhook outbox retention", () => {
  const DAY = 86_400_000;
  const ago = (days: number) => new Date(Date.now() - days * DAY);

  async function event(projectId: string, createdAt: Date): Promise<string> {
    const id = eventId(createdAt.getTime());
    await pool().query("INSERT INTO webhook_events (id, project_id, type, data, created_at) VALUES ($1, $2, 'player.created', '{}', $3)", [
      id,
      projectId,
      createdAt,
    ]);
    return id;
  }

  async function delivery(o: { projectId: string; endpointId: string; eventId: string; status: string; createdAt: Date }): Promise<string> {
    const { rows } = await pool().query<{ id: string }>(
      `INSERT INTO webhook_deliveries (id, project_id, endpoint_id, event_id, status, created_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4::"WebhookDeliveryStatus", $5) RETURNING id`,
      [o.projectId, o.endpointId, o.eventId, o.status, o.createdAt],
    );
    return rows[0]?.id as string;
  }

  async function endpoint(projectId: string, name: string): Promise<string> {
    const { rows } = await pool().query<{ id: string }>(
      `INSERT INTO webhook_endpoints (id, project_id, url, event_types, secret)
       VALUES (gen_random_uuid(), $1, $2, ARRAY['player.created'], 'whsec_test') RETURNING id`,
      [projectId, `https://hooks.example.com/${name}`],
    );
    return rows[0]?.id as string;
  }

  const existing = async (table: "webhook_events" | "webhook_deliveries", ids: string[]) =>
    (await pool().query<{ id: string }>(`SELECT id::text AS id FROM ${table} WHERE id::text = ANY($1::text[])`, [ids])).rows
      .map((r) => r.id)
      .sort();

  it("deletes finished deliveries and events older than the retention, in batches; keeps pending ones, their events and younger rows", async () => {
    const { projectId } = await makeProject();
    const [a, b] = [await endpoint(projectId, "a"), await endpoint(projectId, "b")];
    const at = (endpointId: string, eventId: string, status: string, createdAt: Date) =>
      delivery({ projectId, endpointId, eventId, status, createdAt });
    const delivered = await event(projectId, ago(40));
    const deliveredTo = await at(a, delivered, "SUCCEEDED", ago(40));
    const stillPending = await event(projectId, ago(40));
    const skipped = await at(a, stillPending, "FAILED", ago(40));
    const retrying = await at(b, stillPending, "PENDING", ago(40));
    const storedWhileDisabled = await event(projectId, ago(40));
    const replayedYesterday = await event(projectId, ago(40));
    const replay = await at(a, replayedYesterday, "SUCCEEDED", ago(1));
    const young = await event(projectId, ago(10));
    const youngDelivery = await at(a, young, "FAILED", ago(10));
    const youngUndelivered = await event(projectId, ago(10));
    const events = [delivered, stillPending, storedWhileDisabled, replayedYesterday, young, youngUndelivered];
    const deliveries = [deliveredTo, skipped, retrying, replay, youngDelivery];

    const pruned = await pruneWebhookOutbox({ retentionDays: 30, batchSize: 1 });

    expect(pruned.deliveries).toBeGreaterThanOrEqual(2);
    expect(pruned.events).toBeGreaterThanOrEqual(2);
    expect(await existing("webhook_events", events)).toEqual([stillPending, replayedYesterday, young, youngUndelivered].sort());
    expect(await existing("webhook_deliveries", deliveries)).toEqual([retrying, replay, youngDelivery].sort());

    // A shorter retention (the same clock) reaches the ten-day-old rows; the pending delivery still holds its event.
    await pruneWebhookOutbox({ retentionDays: 5, batchSize: 2 });
    expect(await existing("webhook_events", events)).toEqual([stillPending, replayedYesterday].sort());
    expect(await existing("webhook_deliveries", deliveries)).toEqual([retrying, replay].sort());
  });

  it("the retention is measured from the clock it is given", async () => {
    const { projectId } = await makeProject();
    const a = await endpoint(projectId, "clock");
    const old = await event(projectId, ago(20));
    const done = await delivery({ projectId, endpointId: a, eventId: old, status: "SUCCEEDED", createdAt: ago(20) });
    await pruneWebhookOutbox({ now: new Date(), retentionDays: 30 });
    expect(await existing("webhook_events", [old])).toEqual([old]);
    await pruneWebhookOutbox({ now: new Date(Date.now() + 11 * DAY), retentionDays: 30 });
    expect(await existing("webhook_events", [old])).toEqual([]);
    expect(await existing("webhook_deliveries", [done])).toEqual([]);
  });
});

describe("support records' retention", () => {
  const DAY = 86_400_000;
  const now = new Date();
  const ago = (days: number) => new Date(now.getTime() - days * DAY);
  const receipt = async (projectId: string, status: string, updatedAt: Date) => {
    const id = crypto.randomUUID();
    await pool().query(
      `INSERT INTO store_transactions (id, project_id, store, store_transaction_id, status, refusal, created_at, updated_at)
       VALUES ($1, $2, 'apple', $3, $4, CASE WHEN $4 = 'rejected' THEN 'RECEIPT_INVALID' END, $5, $5)`,
      [id, projectId, `t-${id}`, status, updatedAt],
    );
    return id;
  };
  const report = async (projectId: string, reporterId: string, targetId: string, resolvedAt: Date | null) => {
    const id = crypto.randomUUID();
    await pool().query(
      `INSERT INTO player_reports (id, project_id, reporter_id, target_id, reason, status, resolution, resolved_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'cheating', $5, $6, $7, $8, $8)`,
      [id, projectId, reporterId, targetId, resolvedAt ? "resolved" : "open", resolvedAt ? "dismissed" : null, resolvedAt, ago(400)],
    );
    return id;
  };
  const left = async (table: "store_transactions" | "player_reports", ids: string[]) =>
    (await pool().query<{ id: string }>(`SELECT id::text AS id FROM ${table} WHERE id::text = ANY($1::text[])`, [ids])).rows
      .map((r) => r.id)
      .sort();

  it("deletes rejected receipts refused longer ago than the retention, in batches, and keeps granted ones and younger refusals", async () => {
    const { projectId } = await makeProject();
    const oldRejected = [await receipt(projectId, "rejected", ago(91)), await receipt(projectId, "rejected", ago(200))];
    const youngRejected = await receipt(projectId, "rejected", ago(89));
    const oldGranted = await receipt(projectId, "granted", ago(400));
    const pruned = await pruneSupportRecords({ now, rejectedReceiptDays: 90, resolvedReportDays: 365, batchSize: 1 });
    expect(pruned.rejectedReceipts).toBeGreaterThanOrEqual(2);
    expect(await left("store_transactions", [...oldRejected, youngRejected, oldGranted])).toEqual([youngRejected, oldGranted].sort());
  });

  it("deletes reports resolved longer ago than the retention and keeps open reports however old, and younger resolutions", async () => {
    const { clientKey, projectId } = await makeProject();
    const [pa, pb, pc, pd] = (await Promise.all([1, 2, 3, 4].map(() => anonymousPlayer(clientKey)))).map((p) => p.playerId) as [
      string,
      string,
      string,
      string,
    ];
    const oldResolved = await report(projectId, pa, pb, ago(366));
    const youngResolved = await report(projectId, pa, pc, ago(364));
    const openOld = await report(projectId, pa, pd, null);
    const pruned = await pruneSupportRecords({ now, rejectedReceiptDays: 90, resolvedReportDays: 365 });
    expect(pruned.resolvedReports).toBeGreaterThanOrEqual(1);
    expect(await left("player_reports", [oldResolved, youngResolved, openOld])).toEqual([youngResolved, openOld].sort());
  });
});
