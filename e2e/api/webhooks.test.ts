import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { pool, prisma } from "@/server/db";
import { applyImportAs, exportConfig } from "@/server/services/config";
import { ZConfigDocument } from "@/server/services/config/schemas";
import { createCurrency, createItem, createPurchase } from "@/server/services/economy/definitions";
import { adjustPlayerEconomy } from "@/server/services/economy/wallet";
import { createLeaderboard } from "@/server/services/leaderboards/definitions";
import { upsertOperator } from "@/server/services/operators";
import { deletePlayer } from "@/server/services/players/admin";
import { announceEndedBans } from "@/server/services/players/ban-expiry";
import { banPlayer, unbanPlayer } from "@/server/services/players/bans";
import { EVENT_TYPES } from "@/server/services/webhooks/events";
import { encryptSecret, newSecret } from "@/server/services/webhooks/signing";
import { appRouter } from "@/server/trpc/router";
import { makeProject, type TestProject } from "../support/fixtures";
import { createDatabase, freePort, type StartedApp, startApp } from "../support/global-setup";
import { logLine, logLines, until } from "../support/launch.mjs";
import { documented } from "../support/webhooks";

/**
 * Webhook deliveries end to end: the app under test on a database of this file's own (its
 * dispatcher must be the only one taking these deliveries), real receivers on 127.0.0.1 that
 * verify every delivery with the standardwebhooks library, the retry schedule shrunk by
 * WEBHOOK_RETRY_SCALE so a day of retries takes seconds.
 */
const db = await createDatabase();
// The test process's services (projects, definitions, endpoint rows) use this file's database too.
process.env.DATABASE_URL = db.url;
const dataDir = mkdtempSync(path.join(tmpdir(), "gb-webhooks-"));

const appEnv = (scale: string) => ({
  DATABASE_URL: db.url,
  JWT_SECRET: inject("jwtSecret"),
  DATA_DIR: dataDir,
  SEED_DEMO: "false",
  DEFINITION_CACHE_TTL_MS: "200",
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
  WEBHOOK_RETRY_SCALE: scale,
  WEBHOOK_TIMEOUT_MS: "500",
  WEBHOOK_POLL_MS: "200",
});

/** An app of this file's database for the enclosing describe block (started before it, stopped after it). */
function appForBlock(retryScale: string): () => StartedApp {
  let app: StartedApp | undefined;
  beforeAll(async () => {
    app = await startApp(appEnv(retryScale));
  });
  afterAll(async () => {
    await app?.stop();
  });
  return () => {
    if (!app) throw new Error("the app is not started");
    return app;
  };
}

afterAll(async () => {
  await pool().end();
  await db.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

type Received = {
  at: number;
  id: string;
  signatures: string[];
  verified: boolean[];
  body: { type: string; data: Record<string, unknown> };
};

/** A receiver on 127.0.0.1: records every request, verified against each of `secrets`, and answers what `answer` says. */
async function receiver(secrets: string[], answer: (n: number) => number | "hang" = () => 200, port = 0) {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const verified = secrets.map((s) => {
        try {
          new Webhook(s).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      received.push({
        at: Date.now(),
        id: headers["webhook-id"] ?? "",
        signatures: (headers["webhook-signature"] ?? "").split(" "),
        verified,
        body: JSON.parse(body),
      });
      const status = answer(received.length);
      if (status === "hang") return;
      res.writeHead(status, status >= 300 && status < 400 ? { location: "http://127.0.0.1:9/elsewhere" } : {}).end("thanks");
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    received,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function addEndpoint(projectId: string, url: string, eventTypes: string[], o: { previousSecret?: string } = {}) {
  const secret = newSecret();
  const { rows } = await pool().query<{ id: string }>(
    `INSERT INTO webhook_endpoints (id, project_id, url, event_types, secret, previous_secret, previous_secret_until)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, CASE WHEN $5::text IS NULL THEN NULL ELSE now() + interval '1 hour' END) RETURNING id`,
    [projectId, url, eventTypes, encryptSecret(secret), o.previousSecret ? encryptSecret(o.previousSecret) : null],
  );
  return { id: rows[0]?.id as string, secret };
}

async function economyProject(): Promise<TestProject> {
  const project = await makeProject();
  await createCurrency({ projectId: project.projectId, input: { id: "coins", name: "Coins", initialBalance: 100 } });
  await createItem({ projectId: project.projectId, input: { id: "potion", name: "Potion" } });
  await createPurchase({
    projectId: project.projectId,
    input: { id: "buy-potion", name: "Potion", costs: [{ currencyId: "coins", amount: 10 }], rewards: [{ itemId: "potion", quantity: 1 }] },
  });
  return project;
}

function client(app: () => StartedApp, project: TestProject) {
  const call = async (method: string, route: string, token?: string, body?: unknown) => {
    const res = await fetch(`${app().baseUrl}/api/v1${route}`, {
      method,
      headers: {
        "X-API-Key": project.clientKey,
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    signIn: async () => (await call("POST", "/auth/anonymous")) as { playerId: string; accessToken: string },
    linkEmail: (token: string, email: string) =>
      call("POST", "/auth/email/register", token, { email, password: "a long webhook passphrase" }),
    login: async (email: string) =>
      (await call("POST", "/auth/email/login", undefined, { email, password: "a long webhook passphrase" })) as { accessToken: string },
    submit: (token: string, board: string, score: number) => call("POST", `/leaderboards/${board}/scores`, token, { score }),
    add: (token: string, amount: number) => call("POST", "/economy/currencies/coins/add", token, { amount }),
    subtract: (token: string, amount: number) => call("POST", "/economy/currencies/coins/subtract", token, { amount }),
    buy: (token: string) => call("POST", "/economy/purchase", token, { purchaseId: "buy-potion" }),
  };
}

/** The dashboard's procedures (tRPC's caller) as an admin of the project. */
async function adminOf(projectId: string) {
  const email = `hooks-${randomBytes(4).toString("hex")}@studio.test`;
  const op = await upsertOperator({ email, name: email, password: "a long operator passphrase 9" });
  await prisma().projectMember.create({ data: { projectId, operatorId: op.id, role: "ADMIN" } });
  return appRouter.createCaller({ operator: { ...op, isInstanceAdmin: false }, requestId: `hooks-${randomBytes(3).toString("hex")}` });
}

const deliveries = async (endpointId: string) =>
  (
    await pool().query<{ status: string; attempts: number; response_status: number | null; error: string | null; event_id: string }>(
      "SELECT status, attempts, response_status, error, event_id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY seq",
      [endpointId],
    )
  ).rows;

describe("deliveries", () => {
  const current = appForBlock("0.0001");

  it("a purchase is delivered as purchase.completed and currency.changed, each signed so the standardwebhooks library verifies it", async () => {
    const project = await economyProject();
    const secrets: string[] = [];
    const hook = await receiver(secrets);
    const endpoint = await addEndpoint(project.projectId, hook.url, ["purchase.completed", "currency.changed"]);
    secrets.push(endpoint.secret);
    try {
      const api = client(current, project);
      const player = await api.signIn();
      const bought = (await api.buy(player.accessToken)) as { transactionId: string };
      await until("both events delivered", () => hook.received.length >= 2, 10_000);
      expect(hook.received.map((r) => r.verified)).toEqual([[true], [true]]);
      for (const r of hook.received) expect(documented(r.body.type, r.body.data), r.body.type).toBe(true);
      for (const r of hook.received) expect(r.id).toMatch(/^msg_[0-9a-f]{32}$/);
      const byType = Object.fromEntries(hook.received.map((r) => [r.body.type, r]));
      expect(byType["currency.changed"]?.body.data).toMatchObject({
        playerId: player.playerId,
        transactionId: bought.transactionId,
        kind: "purchase",
        purchaseId: "buy-potion",
        currencies: [{ currencyId: "coins", delta: -10, balance: 90 }],
      });
      expect(byType["purchase.completed"]?.body).toMatchObject({
        id: byType["purchase.completed"]?.id,
        type: "purchase.completed",
        projectId: project.projectId,
        data: {
          transactionId: bought.transactionId,
          purchaseId: "buy-potion",
          quantity: 1,
          inventory: [{ itemId: "potion", quantity: 1 }],
        },
      });
      await until("both deliveries recorded", async () => (await deliveries(endpoint.id)).every((d) => d.status === "SUCCEEDED"), 5_000);
      const stored = await pool().query<{ secret: string }>("SELECT secret FROM webhook_endpoints WHERE id = $1", [endpoint.id]);
      expect(stored.rows[0]?.secret).not.toContain(endpoint.secret.slice(6, 30));
    } finally {
      hook.close();
    }
  });
  it("a player's life (sign-in, e-mail, purchase, score, ban, unban, revoke, deletion) arrives in order, each payload as documented", async () => {
    const project = await economyProject();
    await createLeaderboard({ projectId: project.projectId, input: { id: "arena", name: "Arena", sortOrder: "desc", operator: "best" } });
    await pool().query("UPDATE leaderboards SET score_events = true WHERE project_id = $1 AND id = 'arena'", [project.projectId]);
    const secrets: string[] = [];
    const hook = await receiver(secrets);
    try {
      const endpoint = await addEndpoint(project.projectId, hook.url, [...EVENT_TYPES]);
      secrets.push(endpoint.secret);
      const api = client(current, project);
      const player = await api.signIn();
      await api.linkEmail(player.accessToken, `hook-${Date.now()}@example.com`);
      await api.buy(player.accessToken);
      await api.submit(player.accessToken, "arena", 42);
      const { projectId } = project;
      await banPlayer({ projectId, playerId: player.playerId, reason: "testing" });
      await unbanPlayer({ projectId, playerId: player.playerId });
      const system = { kind: "system", projectId } as const;
      await adjustPlayerEconomy({
        actor: system,
        playerId: player.playerId,
        direction: "revoke",
        items: [{ itemId: "potion", quantity: 1 }],
        reason: "refund",
      });
      await deletePlayer({ projectId, playerId: player.playerId });
      const expected = [
        "player.created",
        "player.signed_in",
        "player.email_linked",
        "currency.changed",
        "item.granted",
        "purchase.completed",
        "leaderboard.score_submitted",
        "player.banned",
        "player.unbanned",
        "item.revoked",
        "player.deleted",
      ];
      await until("every event delivered", () => hook.received.length >= expected.length, 15_000);
      expect(hook.received.map((r) => r.body.type)).toEqual(expected);
      for (const r of hook.received) {
        expect(r.verified, r.body.type).toEqual([true]);
        expect(documented(r.body.type, r.body.data), r.body.type).toBe(true);
        expect(r.body.data.playerId, r.body.type).toBe(player.playerId);
      }
      expect(hook.received.find((r) => r.body.type === "leaderboard.score_submitted")?.body.data).toMatchObject({
        leaderboardId: "arena",
        score: 42,
        entryScore: 42,
      });
      expect(hook.received.find((r) => r.body.type === "item.revoked")?.body.data).toMatchObject({
        kind: "revoke",
        reason: "refund",
        items: [{ itemId: "potion", quantity: 1, total: 0 }],
      });
    } finally {
      hook.close();
    }
  });
  it("currency.changed is sent for an add, a subtract, an operator's grant and revoke, each with its kind, delta, balance and reason", async () => {
    const project = await economyProject();
    const secrets: string[] = [];
    const hook = await receiver(secrets);
    try {
      const endpoint = await addEndpoint(project.projectId, hook.url, ["currency.changed"]);
      secrets.push(endpoint.secret);
      const api = client(current, project);
      const player = await api.signIn();
      await api.add(player.accessToken, 7);
      await api.subtract(player.accessToken, 5);
      const admin = { kind: "system", projectId: project.projectId } as const;
      for (const direction of ["grant", "revoke"] as const) {
        await adjustPlayerEconomy({
          actor: admin,
          playerId: player.playerId,
          direction,
          currencies: [{ currencyId: "coins", amount: 20 }],
          reason: `support ${direction}`,
        });
      }
      await until("four currency changes delivered", () => hook.received.length >= 4, 10_000);
      expect(hook.received.map((r) => r.verified)).toEqual([[true], [true], [true], [true]]);
      for (const r of hook.received) expect(documented(r.body.type, r.body.data), r.body.type).toBe(true);
      expect(hook.received.map((r) => r.body.data)).toMatchObject([
        { playerId: player.playerId, kind: "add", reason: null, currencies: [{ currencyId: "coins", delta: 7, balance: 107 }] },
        { playerId: player.playerId, kind: "subtract", reason: null, currencies: [{ currencyId: "coins", delta: -5, balance: 102 }] },
        {
          playerId: player.playerId,
          kind: "grant",
          reason: "support grant",
          currencies: [{ currencyId: "coins", delta: 20, balance: 122 }],
        },
        {
          playerId: player.playerId,
          kind: "revoke",
          reason: "support revoke",
          currencies: [{ currencyId: "coins", delta: -20, balance: 102 }],
        },
      ]);
    } finally {
      hook.close();
    }
  });
  it("player.signed_in is sent for a player's first sign-in of a UTC day only: a second that day sends none, one after the day changed does", async () => {
    const project = await economyProject();
    const hook = await receiver([]);
    try {
      await addEndpoint(project.projectId, hook.url, ["player.created", "player.signed_in", "currency.changed"]);
      const api = client(current, project);
      const player = await api.signIn();
      const email = `daily-${randomBytes(4).toString("hex")}@example.com`;
      await api.linkEmail(player.accessToken, email);
      await api.login(email);
      // A marker: the same player's next event; one signed_in from the second sign-in would come before it.
      await api.add(player.accessToken, 1);
      await until("the marker delivered", () => hook.received.some((r) => r.body.type === "currency.changed"), 10_000);
      // Every session of the player began yesterday, as if the day had changed since.
      await pool().query("UPDATE sessions SET created_at = created_at - interval '1 day' WHERE player_id = $1", [player.playerId]);
      await api.login(email);
      await until("four events delivered", () => hook.received.length >= 4, 10_000);
      expect(hook.received.map((r) => r.body.type)).toEqual(["player.created", "player.signed_in", "currency.changed", "player.signed_in"]);
      expect(hook.received[3]?.body.data).toEqual({ playerId: player.playerId, method: "email" });
    } finally {
      hook.close();
    }
  });
  it("a board without score events sends no leaderboard.score_submitted (a later event of the same player arrives alone)", async () => {
    const project = await economyProject();
    await createLeaderboard({ projectId: project.projectId, input: { id: "quiet", name: "Quiet", sortOrder: "desc", operator: "best" } });
    const hook = await receiver([]);
    try {
      await addEndpoint(project.projectId, hook.url, ["leaderboard.score_submitted", "currency.changed"]);
      const api = client(current, project);
      const player = await api.signIn();
      await api.submit(player.accessToken, "quiet", 42);
      await api.add(player.accessToken, 1);
      await until("the currency change delivered", () => hook.received.length >= 1, 10_000);
      expect(hook.received.map((r) => r.body.type)).toEqual(["currency.changed"]);
      const stored = await pool().query<{ type: string }>("SELECT type FROM webhook_events WHERE project_id = $1 ORDER BY id", [
        project.projectId,
      ]);
      expect(stored.rows.map((r) => r.type)).toEqual(["currency.changed"]);
    } finally {
      hook.close();
    }
  });
  it("an endpoint disabled by an operator gets no delivery but its events are stored; enabled again, a replay of the time it was off delivers them", async () => {
    const project = await economyProject();
    const secrets: string[] = [];
    const hook = await receiver(secrets);
    try {
      const endpoint = await addEndpoint(project.projectId, hook.url, ["player.created", "currency.changed"]);
      secrets.push(endpoint.secret);
      const admin = await adminOf(project.projectId);
      await admin.webhooks.update({ projectId: project.projectId, endpointId: endpoint.id, patch: { enabled: false } });
      const from = new Date(Date.now() - 1_000);
      const api = client(current, project);
      const player = await api.signIn();
      await api.add(player.accessToken, 7);
      const stored = await pool().query<{ type: string }>("SELECT type FROM webhook_events WHERE project_id = $1 ORDER BY id", [
        project.projectId,
      ]);
      expect(stored.rows.map((r) => r.type)).toEqual(["player.created", "currency.changed"]);
      expect(await deliveries(endpoint.id)).toEqual([]);

      await admin.webhooks.update({ projectId: project.projectId, endpointId: endpoint.id, patch: { enabled: true } });
      const to = new Date(Date.now() + 1_000);
      const replayed = await admin.webhooks.replay({
        projectId: project.projectId,
        endpointId: endpoint.id,
        range: { from: from.toISOString(), to: to.toISOString() },
      });
      expect(replayed).toEqual({ count: 2 });
      await until("both replayed events delivered", () => hook.received.length >= 2, 10_000);
      expect(hook.received.map((r) => [r.body.type, r.body.data.playerId, r.verified])).toEqual([
        ["player.created", player.playerId, [true]],
        ["currency.changed", player.playerId, [true]],
      ]);
    } finally {
      hook.close();
    }
  });
  it("an applied config import is delivered as config.imported with the changes counted per kind and the operator", async () => {
    const project = await makeProject();
    const hook = await receiver([]);
    try {
      await addEndpoint(project.projectId, hook.url, ["config.imported"]);
      const email = `hooks-${randomBytes(4).toString("hex")}@studio.test`;
      const op = await upsertOperator({ email, name: email, password: "a long operator passphrase 9" });
      await prisma().projectMember.create({ data: { projectId: project.projectId, operatorId: op.id, role: "OWNER" } });
      // As the dashboard and the CLI send it: the exported document plus one currency, parsed (defaults filled in).
      const exported = await exportConfig({ projectId: project.projectId });
      const document = ZConfigDocument.parse({
        ...exported,
        currencies: [...exported.currencies, { id: "gold", name: "Gold", initialBalance: 0, maxBalance: null, clientWritable: true }],
      });
      const actor = { operator: { ...op, isInstanceAdmin: false }, requestId: "hooks-import" };
      await applyImportAs(actor, { projectId: project.projectId, document });
      await until("the delivery", () => hook.received.length >= 1);
      expect(hook.received[0]?.body).toMatchObject({
        type: "config.imported",
        data: { changes: 1, operatorId: op.id, diff: { currencies: { created: 1, changed: 0, deleted: 0 } } },
      });
      expect(documented("config.imported", hook.received[0]?.body.data)).toBe(true);
    } finally {
      hook.close();
    }
  });
});

describe("the end of a ban", () => {
  const current = appForBlock("0.0001");
  const unbannedEvents = async (projectId: string) =>
    (
      await pool().query<{ player_id: string; data: { playerId: string; expired: boolean } }>(
        "SELECT player_id, data FROM webhook_events WHERE project_id = $1 AND type = 'player.unbanned' ORDER BY id",
        [projectId],
      )
    ).rows;
  const endBan = (playerId: string) =>
    pool().query("UPDATE players SET banned_until = now() - interval '1 second' WHERE id = $1", [playerId]);

  it("a timed ban that ran out is announced once as player.unbanned (expired), even by two runs at once; running bans and bans without an end are not", async () => {
    const project = await economyProject();
    const hook = await receiver([]);
    try {
      await addEndpoint(project.projectId, hook.url, ["player.unbanned"]);
      const api = client(current, project);
      const [ended, running, forever] = [await api.signIn(), await api.signIn(), await api.signIn()];
      const { projectId } = project;
      const inAnHour = new Date(Date.now() + 3_600_000);
      await banPlayer({ projectId, playerId: ended.playerId, reason: "a day off", until: inAnHour });
      await banPlayer({ projectId, playerId: running.playerId, reason: "a day off", until: inAnHour });
      await banPlayer({ projectId, playerId: forever.playerId, reason: "cheating" });
      await endBan(ended.playerId);
      await Promise.all([announceEndedBans(), announceEndedBans()]);
      await announceEndedBans();
      expect(await unbannedEvents(projectId)).toEqual([{ player_id: ended.playerId, data: { playerId: ended.playerId, expired: true } }]);
      await until("the delivery", () => hook.received.length >= 1, 10_000);
      expect(hook.received[0]?.body.data).toEqual({ playerId: ended.playerId, expired: true });
      expect(documented("player.unbanned", hook.received[0]?.body.data)).toBe(true);
    } finally {
      hook.close();
    }
  });
  it("a new ban of the player is announced again when it runs out; an operator's unban says expired: false", async () => {
    const project = await economyProject();
    await addEndpoint(project.projectId, "http://127.0.0.1:9/hook", ["player.unbanned"]);
    const api = client(current, project);
    const player = await api.signIn();
    const { projectId } = project;
    const until = () => new Date(Date.now() + 3_600_000);
    await banPlayer({ projectId, playerId: player.playerId, reason: "first", until: until() });
    await endBan(player.playerId);
    await announceEndedBans();
    await banPlayer({ projectId, playerId: player.playerId, reason: "second", until: until() });
    await endBan(player.playerId);
    await announceEndedBans();
    await banPlayer({ projectId, playerId: player.playerId, reason: "third", until: until() });
    await unbanPlayer({ projectId, playerId: player.playerId });
    await announceEndedBans();
    expect((await unbannedEvents(projectId)).map((e) => e.data.expired)).toEqual([true, true, false]);
  });
});

/**
 * When each failed attempt of a delivery started (its log line's `startedAt`), in order. Not the
 * log line's own time: that comes after the attempt was recorded, which a busy machine delays by
 * more for one attempt than for the next (a 30 ms retry measured 18 ms between log lines).
 */
function failedAttemptTimes(app: StartedApp, deliveryId: string): number[] {
  return logLines(app.output())
    .filter((l) => l.deliveryId === deliveryId && typeof l.msg === "string" && l.msg.startsWith("webhook delivery failed"))
    .map((l) => Date.parse(String(l.startedAt)));
}

describe("retries", () => {
  const current = appForBlock("0.0001");

  it("a receiver answering 500, one timing out and one refusing connections get eight attempts, none sooner than the growing schedule allows, then FAILED", async () => {
    const project = await economyProject();
    const failing = await receiver([], () => 500);
    const hanging = await receiver([], () => "hang");
    const refusing = `http://127.0.0.1:${await freePort()}/hook`;
    try {
      const endpoints = [
        await addEndpoint(project.projectId, failing.url, ["currency.changed"]),
        await addEndpoint(project.projectId, hanging.url, ["currency.changed"]),
        await addEndpoint(project.projectId, refusing, ["currency.changed"]),
      ];
      const api = client(current, project);
      const player = await api.signIn();
      await api.add(player.accessToken, 5);
      const finals = await until(
        "every delivery failed for good",
        async () => {
          const rows = await Promise.all(endpoints.map((e) => deliveries(e.id)));
          return rows.every((r) => r[0]?.status === "FAILED") ? rows.map((r) => r[0]) : undefined;
        },
        45_000,
      );
      expect(finals.map((d) => d?.attempts)).toEqual([8, 8, 8]);
      expect(finals.map((d) => d?.error?.split(":")[0])).toEqual(["HTTP 500", "error", "ECONNREFUSED"]);
      expect(failing.received).toHaveLength(8);
      const ids = await pool().query<{ id: string; endpoint_id: string }>(
        "SELECT id, endpoint_id FROM webhook_deliveries WHERE project_id = $1",
        [project.projectId],
      );
      for (const row of ids.rows) {
        const times = await until("every attempt logged", () => {
          const t = failedAttemptTimes(current(), row.id);
          return t.length === 8 ? t : undefined;
        });
        const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
        // The schedule (scaled by 0.0001): 0.5 ms, 30 ms, 180 ms, 720 ms, 1.8 s, 3.6 s, 3.6 s (±10 %). A retry is due
        // its delay after the previous attempt was recorded (after it ended), so from start to start a gap is the
        // delay plus the attempt's own time and recording: never less than 90 % of the delay; a busy machine only
        // makes gaps longer (comparing neighbouring gaps failed there: 30 ms measured 344, 180 ms 220).
        const schedule = [0.5, 30, 180, 720, 1_800, 3_600, 3_600];
        expect(gaps, `gaps ${gaps.join(", ")}`).toHaveLength(schedule.length);
        for (const [i, delay] of schedule.entries())
          expect(gaps[i], `gap ${i} of ${gaps.join(", ")}`).toBeGreaterThanOrEqual(Math.floor(delay * 0.9));
      }
      const endpointRows = await pool().query<{ enabled: boolean; failing_since: Date | null }>(
        "SELECT enabled, failing_since FROM webhook_endpoints WHERE project_id = $1",
        [project.projectId],
      );
      expect(endpointRows.rows.every((e) => e.enabled && e.failing_since !== null)).toBe(true);
    } finally {
      failing.close();
      hanging.close();
    }
  }, 60_000);

  it("one player's events reach an endpoint in order while the first keeps failing at first", async () => {
    const project = await economyProject();
    const hook = await receiver([], (n) => (n <= 3 ? 500 : 200));
    try {
      await addEndpoint(project.projectId, hook.url, ["currency.changed"]);
      const api = client(current, project);
      const player = await api.signIn();
      for (let i = 1; i <= 5; i++) await api.add(player.accessToken, i);
      await until("five events delivered", () => new Set(hook.received.slice(3).map((r) => r.id)).size >= 5, 15_000);
      const balances = hook.received.map((r) => (r.body.data.currencies as Array<{ balance: number }>)[0]?.balance);
      // The first change three times (failed), then every change once, in the order they were made.
      expect(balances).toEqual([101, 101, 101, 101, 103, 106, 110, 115]);
    } finally {
      hook.close();
    }
  });

  it("during a secret rotation's overlap a delivery carries two signatures and each secret verifies it alone", async () => {
    const project = await economyProject();
    const secrets: string[] = [];
    const hook = await receiver(secrets);
    try {
      const previous = newSecret();
      const endpoint = await addEndpoint(project.projectId, hook.url, ["player.created"], { previousSecret: previous });
      secrets.push(endpoint.secret, previous);
      await client(current, project).signIn();
      await until("the delivery", () => hook.received.length >= 1);
      expect(hook.received[0]?.signatures).toHaveLength(2);
      expect(hook.received[0]?.verified).toEqual([true, true]);
      expect(documented("player.created", hook.received[0]?.body.data)).toBe(true);
    } finally {
      hook.close();
    }
  });

  it("a redirect is not followed: the attempt fails with the 3xx and is retried", async () => {
    const project = await economyProject();
    const hook = await receiver([], (n) => (n === 1 ? 302 : 200));
    try {
      const endpoint = await addEndpoint(project.projectId, hook.url, ["player.created"]);
      await client(current, project).signIn();
      await until("the retry's success", async () => (await deliveries(endpoint.id))[0]?.status === "SUCCEEDED", 10_000);
      // The receiver's own address twice (the attempt and its retry); never the Location it named.
      expect(hook.received).toHaveLength(2);
      // Log lines reach the output within LOG_FLUSH_MS (they are buffered), so wait for it.
      const line = await logLine(current(), "the failed attempt's log line", (l) => l.endpointId === endpoint.id && l.status === 302);
      expect(line.reason).toMatch(/HTTP 302 \(redirects are not followed\)/);
    } finally {
      hook.close();
    }
  });

  it("an endpoint failing without a success for longer than WEBHOOK_DISABLE_AFTER_MS is disabled with reason 'failing' and an audit row", async () => {
    const project = await economyProject();
    const hook = await receiver([], () => 500);
    try {
      const endpoint = await addEndpoint(project.projectId, hook.url, ["player.created"]);
      await pool().query("UPDATE webhook_endpoints SET failing_since = now() - interval '6 days' WHERE id = $1", [endpoint.id]);
      await client(current, project).signIn();
      const disabled = await until("the endpoint disabled", async () => {
        const { rows } = await pool().query<{ enabled: boolean; disabled_reason: string | null }>(
          "SELECT enabled, disabled_reason FROM webhook_endpoints WHERE id = $1",
          [endpoint.id],
        );
        return rows[0]?.enabled === false ? rows[0] : undefined;
      });
      expect(disabled.disabled_reason).toBe("failing");
      const audit = await pool().query("SELECT 1 FROM audit_log WHERE project_id = $1 AND action = 'webhook.disabled' AND target = $2", [
        project.projectId,
        endpoint.id,
      ]);
      expect(audit.rowCount).toBe(1);
      // The delivery is not retried against a disabled endpoint: it ends FAILED for a later resend.
      await until("the delivery failed", async () => (await deliveries(endpoint.id))[0]?.status === "FAILED", 10_000);
      expect(hook.received).toHaveLength(1);
    } finally {
      hook.close();
    }
  });
});

describe("a crash", () => {
  it("a purchase whose delivery had not succeeded when the app was killed (kill -9) is delivered after the restart", async () => {
    const env = appEnv("0.01");
    let app = await startApp(env);
    const port = await freePort();
    const project = await economyProject();
    const endpoint = await addEndpoint(project.projectId, `http://127.0.0.1:${port}/hook`, ["purchase.completed"]);
    let hook: Awaited<ReturnType<typeof receiver>> | undefined;
    try {
      const api = client(() => app, project);
      const player = await api.signIn();
      const bought = (await api.buy(player.accessToken)) as { transactionId: string };
      // The receiver is down: the first attempt fails, the delivery waits for its retry.
      // Waits for an effect, not a time: generous, so a busy machine's slow queue does not fail it.
      await until("a failed attempt", async () => ((await deliveries(endpoint.id))[0]?.attempts ?? 0) >= 1, 60_000);
      app.child.kill("SIGKILL");
      await app.exited;
      const secrets = [endpoint.secret];
      hook = await receiver(secrets, () => 200, port);
      app = await startApp(env);
      await until("the delivery after the restart", () => (hook && hook.received.length >= 1 ? true : undefined), 60_000);
      expect(hook.received[0]?.body.data).toMatchObject({ transactionId: bought.transactionId });
      expect(hook.received[0]?.verified).toEqual([true]);
      // At least once: every request carried the one event id (a receiver dedupes by it).
      expect(new Set(hook.received.map((r) => r.id)).size).toBe(1);
      await until("the delivery recorded", async () => (await deliveries(endpoint.id))[0]?.status === "SUCCEEDED", 60_000);
    } finally {
      hook?.close();
      await app.stop();
    }
  }, 300_000);

  it("an app killed (kill -9) while a receiver holds its request open sends the event again after the restart, with the same webhook-id", async () => {
    // A dead attempt's lease ends 5 s (timeout) + 1 s (margin) after it began, not 40 s.
    const env = { ...appEnv("0.01"), WEBHOOK_TIMEOUT_MS: "5000", WEBHOOK_LEASE_MARGIN_MS: "1000" };
    let app = await startApp(env);
    const project = await economyProject();
    // The first request is held open and the app killed the moment it arrives, so the attempt is
    // surely in flight when the app dies (a kill sent after polling for the request could come
    // after the attempt timed out on a busy machine); later requests get 200.
    const hook = await receiver([], (n) => {
      if (n !== 1) return 200;
      app.child.kill("SIGKILL");
      return "hang";
    });
    const endpoint = await addEndpoint(project.projectId, hook.url, ["purchase.completed"]);
    try {
      const api = client(() => app, project);
      const player = await api.signIn();
      const bought = (await api.buy(player.accessToken)) as { transactionId: string };
      // Waits for an effect, not a time: generous, so a busy machine's slow queue does not fail it.
      await until("the attempt in flight", () => hook.received.length >= 1, 60_000);
      await app.exited;
      expect((await deliveries(endpoint.id))[0]?.status).toBe("PENDING");
      app = await startApp(env);
      // The dead attempt's lease runs out, then the delivery is attempted again.
      await until("the delivery after the restart", () => hook.received.length >= 2, 60_000);
      await until("the delivery recorded", async () => (await deliveries(endpoint.id))[0]?.status === "SUCCEEDED", 60_000);
      // A duplicate, not a loss: every request carries the one event id and body a receiver dedupes
      // by (two requests as a rule; a third only if a busy machine timed the second out, which is
      // still at least once).
      const first = hook.received[0];
      expect(hook.received.length).toBeGreaterThanOrEqual(2);
      expect(hook.received.map((r) => r.id)).toEqual(hook.received.map(() => first?.id));
      expect(hook.received.map((r) => r.body.data.transactionId)).toEqual(hook.received.map(() => bought.transactionId));
      expect(await deliveries(endpoint.id)).toHaveLength(1);
    } finally {
      hook.close();
      await app.stop();
    }
  }, 300_000);
});
