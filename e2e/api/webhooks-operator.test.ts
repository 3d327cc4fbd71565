import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { pool, prisma, transaction } from "@/server/db";
import { emitEvent, eventId } from "@/server/services/webhooks/events";
import { decryptSecret } from "@/server/services/webhooks/signing";
import { makeProject } from "../support/fixtures";
import { caller, newOperator, trpcRefusal } from "../support/operators";

/**
 * Webhook endpoints and deliveries as operators manage them, through the dashboard's procedures
 * (tRPC's caller): secrets leave only once, roles and projects are checked on the server, and
 * resend, replay and test events write new PENDING deliveries (the dispatcher sends them).
 */
type Caller = ReturnType<typeof caller>;

/** Stored events as the outbox holds them, at given times (what the game services emit). */
async function storeEvents(projectId: string, events: Array<{ type: string; at: Date; playerId?: string }>): Promise<string[]> {
  const ids: string[] = [];
  for (const e of events) {
    const id = eventId(e.at.getTime());
    await pool().query("INSERT INTO webhook_events (id, project_id, type, player_id, data, created_at) VALUES ($1, $2, $3, $4, $5, $6)", [
      id,
      projectId,
      e.type,
      e.playerId ?? null,
      JSON.stringify({ n: ids.length }),
      e.at,
    ]);
    ids.push(id);
  }
  return ids;
}

const https = (name: string) => `https://hooks.example.com/${name}-${randomBytes(3).toString("hex")}`;
let projectId = "";
let other = "";
let admin: Caller;
let viewer: Caller;
let stranger: Caller;

beforeAll(async () => {
  projectId = (await makeProject()).projectId;
  other = (await makeProject()).projectId;
  admin = caller(await newOperator("ADMIN", projectId));
  viewer = caller(await newOperator("VIEWER", projectId));
  stranger = caller(await newOperator("OWNER", other));
});

describe("webhook endpoints", () => {
  it("create answers the secret once; list, get, the audit row and the export never carry it", async () => {
    const created = await admin.webhooks.create({
      projectId,
      endpoint: { url: https("crm"), description: "CRM", eventTypes: ["player.created", "purchase.completed"] },
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const stored = await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: created.endpoint.id } });
    expect(stored.secret).not.toContain(created.secret.slice(6));
    expect(decryptSecret(stored.secret)).toBe(created.secret);
    const listed = await viewer.webhooks.list({ projectId });
    const got = await viewer.webhooks.get({ projectId, endpointId: created.endpoint.id });
    const audit = await prisma().auditEntry.findMany({ where: { projectId, target: created.endpoint.id } });
    const exported = await admin.config.export({ projectId });
    expect(audit.map((a) => a.action)).toEqual(["webhook.create"]);
    const secretPart = created.secret.slice(6, 30);
    for (const text of [listed, got, audit, exported].map((x) => JSON.stringify(x))) {
      expect(text).not.toContain(secretPart);
      expect(text).not.toContain(stored.secret);
      expect(text).not.toMatch(/whsec_|"secret"/);
    }
    expect(listed.find((e) => e.id === created.endpoint.id)).toMatchObject({
      enabled: true,
      disabledReason: null,
      lastDelivery: null,
      failed24h: 0,
      pending24h: 0,
    });
  });

  it("update changes fields, disabling records the operator, enabling clears a failing state; delete removes it", async () => {
    const { endpoint } = await admin.webhooks.create({ projectId, endpoint: { url: https("bot"), eventTypes: ["player.banned"] } });
    const off = await admin.webhooks.update({ projectId, endpointId: endpoint.id, patch: { enabled: false, description: "Paused" } });
    expect(off).toMatchObject({ enabled: false, disabledReason: "operator", description: "Paused" });
    await prisma().webhookEndpoint.update({ where: { id: endpoint.id }, data: { disabledReason: "failing", failingSince: new Date() } });
    const on = await admin.webhooks.update({
      projectId,
      endpointId: endpoint.id,
      patch: { enabled: true, eventTypes: ["player.unbanned"] },
    });
    expect(on).toMatchObject({ enabled: true, disabledReason: null, failingSince: null, eventTypes: ["player.unbanned"] });
    await admin.webhooks.delete({ projectId, endpointId: endpoint.id });
    expect(await prisma().webhookEndpoint.count({ where: { id: endpoint.id } })).toBe(0);
    const actions = await prisma().auditEntry.findMany({ where: { projectId, target: endpoint.id }, orderBy: { id: "asc" } });
    expect(actions.map((a) => a.action)).toEqual(["webhook.create", "webhook.update", "webhook.update", "webhook.delete"]);
  });

  it("rotation answers a new secret, keeps the old one for the overlap (24 h by default), and 0 hours ends it at once", async () => {
    const { endpoint, secret } = await admin.webhooks.create({ projectId, endpoint: { url: https("rot"), eventTypes: ["item.granted"] } });
    const before = Date.now();
    const rotated = await admin.webhooks.rotateSecret({ projectId, endpointId: endpoint.id });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    let row = await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(decryptSecret(row.secret)).toBe(rotated.secret);
    expect(decryptSecret(row.previousSecret ?? "")).toBe(secret);
    const until = row.previousSecretUntil?.getTime() ?? 0;
    expect(until - before).toBeGreaterThanOrEqual(24 * 3_600_000 - 1_000);
    expect(until - before).toBeLessThan(24 * 3_600_000 + 60_000);
    expect(rotated.endpoint.previousSecretUntil).not.toBeNull();

    const now = await admin.webhooks.rotateSecret({ projectId, endpointId: endpoint.id, overlapHours: 0 });
    row = await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(decryptSecret(row.secret)).toBe(now.secret);
    expect(row.previousSecret).toBeNull();
    expect(row.previousSecretUntil).toBeNull();
    const audit = await prisma().auditEntry.findMany({ where: { projectId, action: "webhook.rotate-secret", target: endpoint.id } });
    expect(audit).toHaveLength(2);
    expect(JSON.stringify(audit)).not.toMatch(/whsec_/);
  });

  it("bad input is a validation error and changes nothing", async () => {
    const count = await prisma().webhookEndpoint.count({ where: { projectId } });
    const audited = await prisma().auditEntry.count({ where: { projectId } });
    const bad: Array<Record<string, unknown>> = [
      { url: "not a url", eventTypes: ["player.created"] },
      { url: "ftp://hooks.example.com/x", eventTypes: ["player.created"] },
      { url: "http://hooks.example.com/x", eventTypes: ["player.created"] },
      { url: https("x"), eventTypes: ["player.exploded"] },
      { url: https("x"), eventTypes: [] },
      { url: https("x"), eventTypes: ["player.created"], description: "x".repeat(201) },
      { url: https("x"), eventTypes: ["player.created"], description: "evil\u202Eman" },
    ];
    for (const endpoint of bad) {
      const r = await trpcRefusal(admin.webhooks.create({ projectId, endpoint: endpoint as never }));
      expect(r.appCode, JSON.stringify(endpoint)).toBe("VALIDATION_ERROR");
    }
    expect(await prisma().webhookEndpoint.count({ where: { projectId } })).toBe(count);
    expect(await prisma().auditEntry.count({ where: { projectId } })).toBe(audited);
  });

  it("a viewer reads but changes nothing; another project's endpoint and delivery are not found", async () => {
    const { endpoint } = await admin.webhooks.create({ projectId, endpoint: { url: https("own"), eventTypes: ["player.created"] } });
    expect((await viewer.webhooks.get({ projectId, endpointId: endpoint.id })).id).toBe(endpoint.id);
    for (const call of [
      () => viewer.webhooks.create({ projectId, endpoint: { url: https("v"), eventTypes: ["player.created"] } }),
      () => viewer.webhooks.update({ projectId, endpointId: endpoint.id, patch: { enabled: false } }),
      () => viewer.webhooks.delete({ projectId, endpointId: endpoint.id }),
      () => viewer.webhooks.rotateSecret({ projectId, endpointId: endpoint.id }),
      () => viewer.webhooks.sendTest({ projectId, endpointId: endpoint.id }),
    ]) {
      expect((await trpcRefusal(call())).appCode).toBe("FORBIDDEN");
    }
    const test = await admin.webhooks.sendTest({ projectId, endpointId: endpoint.id });
    const [delivery] = (await admin.webhooks.deliveries({ projectId, endpointId: endpoint.id })).deliveries;
    expect(delivery?.eventId).toBe(test.eventId);
    const deliveryId = delivery?.id ?? "";
    // The stranger owns `other`: this project's ids under that project are not found.
    for (const call of [
      () => stranger.webhooks.get({ projectId: other, endpointId: endpoint.id }),
      () => stranger.webhooks.update({ projectId: other, endpointId: endpoint.id, patch: { enabled: false } }),
      () => stranger.webhooks.delete({ projectId: other, endpointId: endpoint.id }),
      () => stranger.webhooks.rotateSecret({ projectId: other, endpointId: endpoint.id }),
      () => stranger.webhooks.deliveries({ projectId: other, endpointId: endpoint.id }),
      () => stranger.webhooks.delivery({ projectId: other, deliveryId }),
      () => stranger.webhooks.resend({ projectId: other, deliveryId }),
    ]) {
      expect(await trpcRefusal(call())).toMatchObject({ code: "NOT_FOUND", appCode: "NOT_FOUND" });
    }
    expect((await trpcRefusal(stranger.webhooks.get({ projectId, endpointId: endpoint.id }))).message).toBe("Project not found.");
    expect((await prisma().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).enabled).toBe(true);
    expect(await prisma().webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(1);
  });

  it("a test event is one PENDING delivery to that endpoint only; its detail shows the event as the request body", async () => {
    const a = await admin.webhooks.create({ projectId, endpoint: { url: https("a"), eventTypes: ["player.created"] } });
    const b = await admin.webhooks
      .create({ projectId, endpoint: { url: https("b"), eventTypes: ["player.created", "webhook.test" as never] } })
      .catch(() => null);
    expect(b).toBeNull(); // webhook.test is not subscribable
    const c = await admin.webhooks.create({ projectId, endpoint: { url: https("c"), eventTypes: ["player.created"] } });
    const { eventId: id } = await admin.webhooks.sendTest({ projectId, endpointId: a.endpoint.id });
    const deliveries = await prisma().webhookDelivery.findMany({ where: { eventId: id } });
    expect(deliveries.map((d) => [d.endpointId, d.status])).toEqual([[a.endpoint.id, "PENDING"]]);
    expect(await prisma().webhookDelivery.count({ where: { endpointId: c.endpoint.id } })).toBe(0);
    const detail = await viewer.webhooks.delivery({ projectId, deliveryId: deliveries[0]?.id ?? "" });
    expect(JSON.parse(detail.requestBody)).toMatchObject({ id, type: "webhook.test", data: { endpointId: a.endpoint.id } });
    expect(detail).toMatchObject({ status: "PENDING", attempts: 0, responseBody: null, requestTruncated: false });
    const listed = (await viewer.webhooks.list({ projectId })).find((e) => e.id === a.endpoint.id);
    expect(listed).toMatchObject({ pending24h: 1, failed24h: 0, lastDelivery: { status: "PENDING" } });
  });

  it("resend writes a new PENDING delivery of the same event; replay writes one per subscribed event in [from, to)", async () => {
    const { endpoint } = await admin.webhooks.create({
      projectId,
      endpoint: { url: https("replay"), eventTypes: ["player.created", "currency.changed"] },
    });
    const t0 = new Date(Date.now() - 3_600_000);
    const at = (minutes: number) => new Date(t0.getTime() + minutes * 60_000);
    const ids = await storeEvents(projectId, [
      { type: "player.created", at: at(0) }, // the range's start: in
      { type: "currency.changed", at: at(5) },
      { type: "player.banned", at: at(6) }, // not subscribed
      { type: "player.created", at: at(10) }, // the range's end: out
    ]);
    await storeEvents(other, [{ type: "player.created", at: at(1) }]); // another project's
    const replayed = await admin.webhooks.replay({
      projectId,
      endpointId: endpoint.id,
      range: { from: at(0).toISOString(), to: at(10).toISOString() },
    });
    expect(replayed).toEqual({ count: 2 });
    let rows = await prisma().webhookDelivery.findMany({ where: { endpointId: endpoint.id }, orderBy: { seq: "asc" } });
    expect(rows.map((r) => [r.eventId, r.status])).toEqual([
      [ids[0], "PENDING"],
      [ids[1], "PENDING"],
    ]);
    await prisma().webhookDelivery.update({ where: { id: rows[0]?.id }, data: { status: "FAILED", attempts: 9, responseStatus: 500 } });
    const resent = await admin.webhooks.resend({ projectId, deliveryId: rows[0]?.id ?? "" });
    rows = await prisma().webhookDelivery.findMany({ where: { endpointId: endpoint.id }, orderBy: { seq: "asc" } });
    expect(rows).toHaveLength(3);
    // Not its attempts: the suite's apps dispatch every project's due deliveries, so one of them may
    // already have tried it (the failed one above keeps its state: an attempt records only over the
    // delivery as it was claimed).
    expect(rows[2]).toMatchObject({ id: resent.deliveryId, eventId: ids[0], status: "PENDING" });
    const page = await viewer.webhooks.deliveries({ projectId, endpointId: endpoint.id, status: "FAILED" });
    expect(page.deliveries.map((d) => [d.eventType, d.attempts, d.responseStatus])).toEqual([["player.created", 9, 500]]);
    const byType = await viewer.webhooks.deliveries({ projectId, endpointId: endpoint.id, eventType: "currency.changed" });
    expect(byType.deliveries.map((d) => d.eventId)).toEqual([ids[1]]);
    const first = await viewer.webhooks.deliveries({ projectId, endpointId: endpoint.id, limit: 2 });
    const second = await viewer.webhooks.deliveries({ projectId, endpointId: endpoint.id, limit: 2, cursor: first.nextCursor });
    expect([...first.deliveries, ...second.deliveries].map((d) => d.id).sort()).toEqual(rows.map((r) => r.id).sort());
    expect(second.nextCursor).toBeNull();
    const audit = await prisma().auditEntry.findMany({ where: { projectId, target: { in: [endpoint.id, rows[0]?.id ?? ""] } } });
    expect(audit.map((a) => a.action).sort()).toEqual(["webhook.create", "webhook.replay", "webhook.resend"]);
    const backwards = await trpcRefusal(
      admin.webhooks.replay({ projectId, endpointId: endpoint.id, range: { from: at(10).toISOString(), to: at(0).toISOString() } }),
    );
    expect(backwards.appCode).toBe("VALIDATION_ERROR");
    expect(await prisma().webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(3);
  });

  it("a replay of more than 10,000 events is refused and writes nothing; a delivery's bodies are cut to 4 KiB for display", async () => {
    const { endpoint } = await admin.webhooks.create({ projectId, endpoint: { url: https("big"), eventTypes: ["item.revoked"] } });
    const from = new Date(Date.now() - 7_200_000);
    await pool().query(
      `INSERT INTO webhook_events (id, project_id, type, data, created_at)
       SELECT 'msg_bulk_' || g, $1, 'item.revoked', '{}'::jsonb, $2::timestamptz + g * interval '1 ms' FROM generate_series(1, 10001) g`,
      [projectId, from],
    );
    const range = { from: from.toISOString(), to: new Date(from.getTime() + 60_000).toISOString() };
    expect((await trpcRefusal(admin.webhooks.replay({ projectId, endpointId: endpoint.id, range }))).appCode).toBe("LIMIT_EXCEEDED");
    expect(await prisma().webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(0);

    const [big] = await storeEvents(projectId, [{ type: "item.revoked", at: new Date() }]);
    await pool().query("UPDATE webhook_events SET data = $2 WHERE id = $1", [big, JSON.stringify({ note: "x".repeat(6000) })]);
    const { rows } = await pool().query<{ id: string }>(
      `INSERT INTO webhook_deliveries (id, project_id, endpoint_id, event_id, status, attempts, response_status, response_ms, response_body, last_attempt_at)
       VALUES (gen_random_uuid(), $1, $2, $3, 'FAILED', 3, 502, 120, $4, now()) RETURNING id`,
      [projectId, endpoint.id, big, "y".repeat(5000)],
    );
    const detail = await viewer.webhooks.delivery({ projectId, deliveryId: rows[0]?.id ?? "" });
    expect(detail).toMatchObject({
      status: "FAILED",
      attempts: 3,
      responseStatus: 502,
      responseMs: 120,
      requestTruncated: true,
      responseTruncated: true,
    });
    expect(detail.requestBody).toHaveLength(4096);
    expect(detail.responseBody).toHaveLength(4096);
  });

  it("a project has at most 20 endpoints and one per URL", async () => {
    const { projectId: full } = await makeProject();
    const owner = caller(await newOperator("OWNER", full));
    const url = https("dup");
    await owner.webhooks.create({ projectId: full, endpoint: { url, eventTypes: ["player.created"] } });
    expect((await trpcRefusal(owner.webhooks.create({ projectId: full, endpoint: { url, eventTypes: ["player.deleted"] } }))).appCode).toBe(
      "ALREADY_EXISTS",
    );
    for (let i = 1; i < 20; i++)
      await owner.webhooks.create({ projectId: full, endpoint: { url: https(`n${i}`), eventTypes: ["player.created"] } });
    expect(
      (await trpcRefusal(owner.webhooks.create({ projectId: full, endpoint: { url: https("21"), eventTypes: ["player.created"] } })))
        .appCode,
    ).toBe("LIMIT_EXCEEDED");
    expect(await prisma().webhookEndpoint.count({ where: { projectId: full } })).toBe(20);
  });
});

describe("webhook endpoints in the configuration document", () => {
  it("export lists them by URL without secrets; importing it into another project creates them with new secrets; a second import changes nothing", async () => {
    const { projectId: source } = await makeProject();
    const { projectId: target } = await makeProject();
    const owner = await newOperator("OWNER", source);
    await prisma().projectMember.create({ data: { projectId: target, operatorId: owner.id, role: "OWNER" } });
    const o = caller(owner);
    const a = await o.webhooks.create({
      projectId: source,
      endpoint: { url: https("z-crm"), description: "CRM", eventTypes: ["purchase.completed", "player.created"] },
    });
    await o.webhooks.create({ projectId: source, endpoint: { url: https("a-bot"), eventTypes: ["player.banned"], enabled: false } });
    const doc = await o.config.export({ projectId: source });
    expect(doc.webhooks?.map((w) => w.url)).toEqual([...(doc.webhooks ?? []).map((w) => w.url)].sort());
    expect(doc.webhooks?.find((w) => w.url === a.endpoint.url)).toEqual({
      url: a.endpoint.url,
      description: "CRM",
      eventTypes: ["player.created", "purchase.completed"],
      enabled: true,
    });
    expect(JSON.stringify(doc)).not.toMatch(/whsec_|secret/i);

    const plan = await o.config.dryRun({ projectId: target, document: doc });
    expect(plan.diff.webhooks.created.map((c) => c.id).sort()).toEqual(doc.webhooks?.map((w) => w.url).sort());
    expect(await prisma().webhookEndpoint.count({ where: { projectId: target } })).toBe(0);
    await o.config.import({ projectId: target, document: doc });
    const created = await prisma().webhookEndpoint.findMany({ where: { projectId: target } });
    expect(created).toHaveLength(2);
    for (const e of created) expect(decryptSecret(e.secret)).toMatch(/^whsec_/);
    const copy = await o.config.export({ projectId: target });
    expect(copy.webhooks).toEqual(doc.webhooks);
    expect((await o.config.dryRun({ projectId: target, document: copy })).changes).toBe(0);
    const audit = await prisma().auditEntry.findMany({ where: { projectId: target, action: "config.import" } });
    expect(JSON.stringify(audit)).not.toMatch(/whsec_|v1:/);

    // Changed and removed by URL; a document without the list leaves endpoints alone.
    const edited = {
      ...copy,
      webhooks: (copy.webhooks ?? []).filter((w) => w.url === a.endpoint.url).map((w) => ({ ...w, description: "Edited", enabled: false })),
    };
    const editPlan = await o.config.dryRun({ projectId: target, document: edited });
    expect(editPlan.diff.webhooks.changed).toEqual([
      {
        id: a.endpoint.url,
        fields: [
          { field: "description", before: "CRM", after: "Edited" },
          { field: "enabled", before: true, after: false },
        ],
      },
    ]);
    expect(editPlan.diff.webhooks.deleted).toHaveLength(1);
    await o.config.import({ projectId: target, document: edited });
    const left = await prisma().webhookEndpoint.findMany({ where: { projectId: target } });
    expect(left.map((e) => [e.url, e.description, e.enabled, e.disabledReason])).toEqual([[a.endpoint.url, "Edited", false, "operator"]]);
    const { webhooks: _w, ...without } = edited;
    expect((await o.config.dryRun({ projectId: target, document: without })).diff.webhooks).toEqual({
      created: [],
      changed: [],
      deleted: [],
    });
  });

  it("refuses a document with the same URL twice, an unknown event type or plain http, changing nothing", async () => {
    const { projectId: target } = await makeProject();
    const o = caller(await newOperator("OWNER", target));
    const base = await o.config.export({ projectId: target });
    const url = https("dup");
    const hook = { url, description: "", eventTypes: ["player.created" as const], enabled: true };
    const twice = await trpcRefusal(o.config.dryRun({ projectId: target, document: { ...base, webhooks: [hook, hook] } }));
    expect(twice.appCode).toBe("VALIDATION_ERROR");
    const unknown = await trpcRefusal(
      o.config.import({ projectId: target, document: { ...base, webhooks: [{ ...hook, eventTypes: ["player.exploded" as never] }] } }),
    );
    expect(unknown.appCode).toBe("VALIDATION_ERROR");
    const plain = { ...base, webhooks: [{ ...hook, url: "http://hooks.example.com/in" }] };
    expect((await o.config.dryRun({ projectId: target, document: plain })).refusals.map((r) => [r.kind, r.code])).toEqual([
      ["webhooks", "VALIDATION_ERROR"],
    ]);
    expect((await trpcRefusal(o.config.import({ projectId: target, document: plain }))).appCode).toBe("VALIDATION_ERROR");
    expect(await prisma().webhookEndpoint.count({ where: { projectId: target } })).toBe(0);
  });
});

describe("the outbox is part of the change's transaction", () => {
  it("an event emitted in a transaction that rolls back leaves no event and no delivery; one that commits leaves both", async () => {
    const { projectId: own } = await makeProject();
    const owner = caller(await newOperator("OWNER", own));
    await owner.webhooks.create({ projectId: own, endpoint: { url: https("tx"), eventTypes: ["player.banned"] } });
    const stored = async () => {
      const { rows } = await pool().query<{ events: number; deliveries: number }>(
        `SELECT (SELECT count(*)::int FROM webhook_events WHERE project_id = $1) AS events,
                (SELECT count(*)::int FROM webhook_deliveries WHERE project_id = $1) AS deliveries`,
        [own],
      );
      return rows[0];
    };
    const ban = { projectId: own, type: "player.banned" as const, data: { playerId: "p", reason: "test", until: null } };

    const failed = transaction(async () => {
      expect(await emitEvent(ban)).toMatch(/^msg_/);
      throw new Error("the change failed after its event");
    });
    await expect(failed).rejects.toThrow("the change failed after its event");
    expect(await stored()).toEqual({ events: 0, deliveries: 0 });

    await transaction(async () => {
      await emitEvent(ban);
    });
    expect(await stored()).toEqual({ events: 1, deliveries: 1 });
  });
});
