import { createHash, randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { uuidv7 } from "@/server/crypto";
import { pool } from "@/server/db";
import { createCurrency } from "@/server/services/economy/definitions";
import { readRemoteConfig } from "@/server/services/remote-config/definitions";
import { countAudience } from "@/server/services/remote-config/operator";
import { playerConfig } from "@/server/services/remote-config/player-config";
import { bucketOf, resolveConfig } from "@/server/services/remote-config/resolve";
import type { Rule } from "@/server/services/remote-config/schemas";
import { endpointsChanged } from "@/server/services/webhooks/events";
import { api, definitionCachesExpired } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { COLOR_TEST, experimentOnKey, ownedProject, PRICE_TEST, type RemoteConfigCalls } from "../support/remote-config";

/**
 * Remote config as a game sees it (GET /config over HTTP, checked against the OpenAPI document)
 * and as the engine decides it: stable rollout buckets, audience rules counted by the same SQL
 * the players' answers use (compared with hand-written SQL), time windows on an injected clock,
 * experiment assignment once per player, and what sign-in records about the client.
 */

const reason = "test";

const getConfig = (p: TestProject, player: TestPlayer, headers: Record<string, string> = {}) =>
  api<{ values: Record<string, unknown>; assignments: Record<string, string>; version: number }>("GET", "/api/v1/config", {
    key: p.clientKey,
    token: player.accessToken,
    headers,
  });

const fakePlayers = (n: number) => Array.from({ length: n }, () => randomUUID());

describe("rollout buckets", () => {
  it("put a player in the same bucket every time: 10,000 evaluations agree, and a sample over HTTP agrees with them", async () => {
    const { project, rc } = await ownedProject();
    const projectId = project.projectId;
    await rc.upsertKey({ projectId, key: "greeting", type: "string", defaultValue: "hello", description: "", reason });
    await rc.createOverride({ projectId, key: "greeting", value: "bonjour", rolloutPercent: 50, reason });
    const defs = await readRemoteConfig(projectId);
    const someone = randomUUID();
    const seen = new Set<unknown>();
    for (let i = 0; i < 10_000; i++)
      seen.add((await resolveConfig({ projectId, playerId: someone, defs, now: new Date() })).values.greeting);
    expect(seen.size).toBe(1);

    await definitionCachesExpired();
    for (let i = 0; i < 5; i++) {
      const player = await anonymousPlayer(project.clientKey);
      const local = await resolveConfig({ projectId, playerId: player.playerId, defs, now: new Date() });
      const res = await getConfig(project, player);
      expect(res.status).toBe(200);
      expect(res.body.values).toEqual(local.values);
    }
  });

  it("growing a rollout from 10 % to 50 % keeps every player who was in, and lets in about half", async () => {
    const { project, rc } = await ownedProject();
    const projectId = project.projectId;
    await rc.upsertKey({ projectId, key: "new-shop", type: "boolean", defaultValue: false, description: "", reason });
    const override = await rc.createOverride({ projectId, key: "new-shop", value: true, rolloutPercent: 10, reason });
    const players = fakePlayers(10_000);
    const inAt = async () => {
      const defs = await readRemoteConfig(projectId);
      const ins = new Set<string>();
      for (const playerId of players)
        if ((await resolveConfig({ projectId, playerId, defs, now: new Date() })).values["new-shop"] === true) ins.add(playerId);
      return ins;
    };
    const atTen = await inAt();
    await rc.updateOverride({ projectId, id: override.id, rolloutPercent: 50, reason });
    const atFifty = await inAt();
    expect([...atTen].filter((p) => !atFifty.has(p))).toEqual([]);
    expect(atTen.size).toBeGreaterThan(800);
    expect(atTen.size).toBeLessThan(1200);
    expect(atFifty.size).toBeGreaterThan(4700);
    expect(atFifty.size).toBeLessThan(5300);
  });

  it("buckets are uint32 of sha256(salt:playerId)'s first 4 bytes, mod 10,000", () => {
    const playerId = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
    const expected = createHash("sha256").update(`k:*:${playerId}`).digest().readUInt32BE(0) % 10_000;
    expect(bucketOf("k:*", playerId)).toBe(expected);
  });
});

describe("audience rules", () => {
  let project: TestProject;
  let rc: RemoteConfigCalls;
  const ids: string[] = [];
  beforeAll(async () => {
    ({ project, rc } = await ownedProject());
    const projectId = project.projectId;
    await createCurrency({ projectId, input: { id: "gold", name: "Gold", initialBalance: 10, clientWritable: false } });
    await rc.upsertExperiment({
      projectId,
      id: "exp",
      name: "Exp",
      variants: [
        { id: "a", name: "A", weight: 1 },
        { id: "b", name: "B", weight: 1 },
      ],
      reason,
    });
    const platforms = ["ios", "android", null];
    const versions = ["1.2.0", "1.10", "2.0.1", "junk", null, "1.2"];
    for (let i = 0; i < 24; i++) {
      const id = uuidv7();
      ids.push(id);
      const day = 86_400_000;
      await pool().query(
        `INSERT INTO players (id, project_id, email, created_at, updated_at, last_seen_at, platform, country, client_version, banned_at, banned_until)
         VALUES ($1, $2, $3, $4, now(), $5, $6, $7, $8, $9, $10)`,
        [
          id,
          projectId,
          i % 3 === 0 ? `p${i}-${randomBytes(3).toString("hex")}@example.test` : null,
          new Date(Date.now() - i * 5 * day),
          i % 4 === 0 ? null : new Date(Date.now() - i * day),
          platforms[i % 3],
          i % 2 ? "FR" : "US",
          versions[i % 6],
          i % 5 === 0 ? new Date() : null,
          i === 10 ? new Date(Date.now() - day) : null,
        ],
      );
      if (i % 4 === 1)
        await pool().query("INSERT INTO identities (id, project_id, player_id, provider, subject) VALUES ($1, $2, $3, 'studio', $4)", [
          uuidv7(),
          projectId,
          id,
          `s-${i}`,
        ]);
      if (i % 6 === 2)
        await pool().query("INSERT INTO device_credentials (project_id, secret_hash, player_id) VALUES ($1, $2, $3)", [
          projectId,
          randomBytes(32),
          id,
        ]);
      if (i % 3 === 1)
        await pool().query(
          "INSERT INTO wallets (project_id, player_id, currency_id, balance, initial_balance) VALUES ($1, $2, 'gold', $3, 10)",
          [projectId, id, i * 7],
        );
      for (let k = 0; k < i % 3; k++)
        await pool().query(
          `INSERT INTO store_transactions (id, project_id, store, store_transaction_id, player_id, status, environment, quantity, price_micros, currency)
           VALUES ($1, $2, 'apple', $3, $4, $5, $6, 1, $7, $8)`,
          [
            uuidv7(),
            projectId,
            `t-${i}-${k}`,
            id,
            k === 1 && i % 2 ? "refunded" : "granted",
            i === 4 ? "sandbox" : "production",
            990_000 * (k + 1),
            i % 4 === 2 ? "EUR" : "USD",
          ],
        );
      if (i % 2 === 0)
        await pool().query(
          "INSERT INTO player_data (player_id, key, project_id, value, size_bytes, written_by_server) VALUES ($1, 'tier', $2, $3::jsonb, 10, $4)",
          [id, projectId, JSON.stringify(i % 4 === 0 ? { level: 3 } : "gold"), i % 8 === 0],
        );
      if (i % 3 === 2)
        await pool().query(
          "INSERT INTO experiment_assignments (project_id, experiment_id, player_id, variant) VALUES ($1, 'exp', $2, $3)",
          [projectId, id, i % 2 ? "a" : "b"],
        );
    }
  });

  /** The hand-written count: one independent WHERE per rule kind. */
  const hand = async (where: string, values: unknown[] = []) => {
    const { rows } = await pool().query<{ n: string }>(`SELECT count(*) AS n FROM players p WHERE p.project_id = $1 AND (${where})`, [
      project.projectId,
      ...values,
    ]);
    return Number(rows[0]?.n);
  };
  const iso = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString();

  const cases: Array<[string, Rule, string, unknown[]?]> = [
    [
      "signInMethod anonymous",
      { field: "signInMethod", in: ["anonymous"] },
      "p.email IS NULL AND p.id NOT IN (SELECT player_id FROM identities)",
    ],
    [
      "signInMethod oidc or device",
      { field: "signInMethod", in: ["oidc", "device"] },
      "p.id IN (SELECT player_id FROM identities UNION SELECT player_id FROM device_credentials)",
    ],
    ["hasEmail", { field: "hasEmail", eq: true }, "p.email IS NOT NULL"],
    ["createdAt after", { field: "createdAt", after: iso(30) }, "p.created_at >= $2", [iso(30)]],
    ["lastSeenAt within 7 days", { field: "lastSeenAt", withinDays: 7 }, "p.last_seen_at >= now() - interval '7 days'"],
    ["lastSeenAt before", { field: "lastSeenAt", before: iso(10) }, "p.last_seen_at < $2", [iso(10)]],
    ["platform", { field: "platform", in: ["ios"] }, "p.platform = 'ios'"],
    ["country", { field: "country", in: ["FR"] }, "p.country = 'FR'"],
    ["clientVersion gte 1.2 lt 2", { field: "clientVersion", gte: "1.2", lt: "2" }, "p.client_version IN ('1.2.0', '1.10', '1.2')"],
    ["banned", { field: "banned", eq: true }, "p.banned_at IS NOT NULL AND (p.banned_until IS NULL OR p.banned_until > now())"],
    ["not banned", { field: "banned", eq: false }, "NOT (p.banned_at IS NOT NULL AND (p.banned_until IS NULL OR p.banned_until > now()))"],
    [
      "balance gte 30 (no wallet: the initial 10)",
      { field: "balance", currency: "gold", gte: 30 },
      "(SELECT balance FROM wallets w WHERE w.player_id = p.id AND w.currency_id = 'gold') >= 30",
    ],
    [
      "balance lte 10",
      { field: "balance", currency: "gold", lte: 10 },
      "COALESCE((SELECT balance FROM wallets w WHERE w.player_id = p.id AND w.currency_id = 'gold'), 10) <= 10",
    ],
    [
      "storeSpent USD gte 1.5 (micros)",
      { field: "storeSpent", currency: "USD", gte: 1_500_000 },
      `(SELECT COALESCE(sum(price_micros), 0) FROM store_transactions s WHERE s.player_id = p.id AND s.status = 'granted'
          AND s.environment = 'production' AND s.currency = 'USD') >= 1500000`,
    ],
    [
      "storePurchases gte 1",
      { field: "storePurchases", gte: 1 },
      "EXISTS (SELECT 1 FROM store_transactions s WHERE s.player_id = p.id AND s.status = 'granted' AND s.environment = 'production')",
    ],
    [
      "data",
      { field: "data", key: "tier", eq: { level: 3 } },
      `EXISTS (SELECT 1 FROM player_data d WHERE d.player_id = p.id AND d.key = 'tier' AND d.value = '{"level":3}' AND d.written_by_server)`,
    ],
    [
      "experiment",
      { field: "experiment", experimentId: "exp" },
      "EXISTS (SELECT 1 FROM experiment_assignments a WHERE a.player_id = p.id)",
    ],
    [
      "experiment variant",
      { field: "experiment", experimentId: "exp", variant: "a" },
      "EXISTS (SELECT 1 FROM experiment_assignments a WHERE a.player_id = p.id AND a.variant = 'a')",
    ],
  ];

  it.each(cases)("countAudience for %s equals the hand-written SQL", async (_name, rule, where, values) => {
    const expected = await hand(where, values);
    const { matching } = await rc.countAudience({ projectId: project.projectId, rules: { all: [rule] } });
    expect(matching).toBe(expected);
    expect(expected).toBeGreaterThan(0); // the seed exercises the rule
  });

  it("rules combine with AND", async () => {
    const { matching } = await rc.countAudience({
      projectId: project.projectId,
      rules: {
        all: [
          { field: "country", in: ["FR"] },
          { field: "platform", in: ["ios", "android"] },
        ],
      },
    });
    expect(matching).toBe(await hand("p.country = 'FR' AND p.platform IN ('ios', 'android')"));
  });

  it("a player's resolution matches the audiences counted (the same predicate)", async () => {
    const projectId = project.projectId;
    await rc.upsertAudience({ projectId, id: "fr", name: "France", rules: { all: [{ field: "country", in: ["FR"] }] }, reason });
    await rc.upsertKey({ projectId, key: "lang", type: "string", defaultValue: "en", reason });
    await rc.createOverride({ projectId, key: "lang", audienceId: "fr", value: "fr", reason });
    const defs = await readRemoteConfig(projectId);
    let french = 0;
    for (const playerId of ids) if ((await resolveConfig({ projectId, playerId, defs, now: new Date() })).values.lang === "fr") french++;
    expect(french).toBe(await hand("p.country = 'FR'"));
  });
});

describe("a data audience rule", () => {
  /** A project whose `vip` audience is `data vipTier = "gold"`, overriding `banner` for it. */
  async function vipProject() {
    const { project, rc } = await ownedProject();
    const projectId = project.projectId;
    const rules = { all: [{ field: "data" as const, key: "vipTier", eq: "gold" }] };
    await rc.upsertAudience({ projectId, id: "vip", name: "VIP", rules, reason });
    await rc.upsertKey({ projectId, key: "banner", type: "string", defaultValue: "none", reason });
    await rc.createOverride({ projectId, key: "banner", audienceId: "vip", value: "vip-lounge", reason });
    await definitionCachesExpired();
    const player = await anonymousPlayer(project.clientKey);
    const write = (as: "client" | "server", method: "PUT" | "PATCH") =>
      api(method, `/api/v1/players/me/data${method === "PUT" ? "/vipTier" : ""}`, {
        ...(as === "client"
          ? { key: project.clientKey, token: player.accessToken }
          : { key: project.serverKey, headers: { "X-Player-Id": player.playerId } }),
        body: method === "PUT" ? { value: "gold" } : { set: { vipTier: { value: "gold" } } },
      });
    const banner = async () => (await getConfig(project, player)).body.values.banner;
    return { write, banner };
  }

  it("never matches a value the player wrote itself with the client key (PUT)", async () => {
    const { write, banner } = await vipProject();
    expect((await write("client", "PUT")).status).toBe(201);
    expect(await banner()).toBe("none");
  });

  it("never matches a value the player wrote itself with the client key (PATCH)", async () => {
    const { write, banner } = await vipProject();
    expect((await write("client", "PATCH")).status).toBe(200);
    expect(await banner()).toBe("none");
  });

  it("matches the same value written with the server key", async () => {
    const { write, banner } = await vipProject();
    expect((await write("server", "PUT")).status).toBe(201);
    expect(await banner()).toBe("vip-lounge");
  });

  it("stops matching when the player overwrites the server's value, even with the same value", async () => {
    const { write, banner } = await vipProject();
    await write("server", "PATCH");
    expect((await write("client", "PUT")).status).toBe(200);
    expect(await banner()).toBe("none");
  });
});

describe("time windows", () => {
  it("an override applies inside [startsAt, endsAt) on the injected clock, not before or after", async () => {
    const { project, rc } = await ownedProject();
    const projectId = project.projectId;
    await rc.upsertKey({ projectId, key: "event", type: "string", defaultValue: "none", reason });
    await rc.createOverride({
      projectId,
      key: "event",
      value: "halloween",
      startsAt: "2026-10-25T00:00:00Z",
      endsAt: "2026-11-01T00:00:00Z",
      reason,
    });
    const player = await anonymousPlayer(project.clientKey);
    const actor = { kind: "player" as const, projectId, playerId: player.playerId, via: "token" as const };
    const at = async (when: string) => (await playerConfig({ actor, now: new Date(when) })).body.values.event;
    expect(await at("2026-10-24T23:59:59.999Z")).toBe("none");
    expect(await at("2026-10-25T00:00:00Z")).toBe("halloween");
    expect(await at("2026-10-31T23:59:59Z")).toBe("halloween");
    expect(await at("2026-11-01T00:00:00Z")).toBe("none");
  });

  it("an audience's withinDays rule counts against the injected clock", async () => {
    const { project, rc } = await ownedProject();
    const player = await anonymousPlayer(project.clientKey);
    const rules = { all: [{ field: "lastSeenAt" as const, withinDays: 1 }] };
    expect((await countAudience({ projectId: project.projectId, rules, now: new Date() })).matching).toBe(1);
    expect((await countAudience({ projectId: project.projectId, rules, now: new Date(Date.now() + 3 * 86_400_000) })).matching).toBe(0);
    expect(player.playerId).toBeTruthy();
    expect((await rc.countAudience({ projectId: project.projectId, rules })).matching).toBe(1);
  });
});

describe("GET /config", () => {
  it("answers the values with a strong ETag; If-None-Match with it answers 304 without a body", async () => {
    const { project, rc } = await ownedProject();
    const projectId = project.projectId;
    await rc.upsertKey({ projectId, key: "speed", type: "number", defaultValue: 1.5, reason });
    await rc.upsertKey({ projectId, key: "flags", type: "json", defaultValue: { a: [1, 2] }, reason });
    await definitionCachesExpired();
    const player = await anonymousPlayer(project.clientKey);
    const first = await getConfig(project, player);
    expect(first.status).toBe(200);
    expect(first.body.values).toEqual({ speed: 1.5, flags: { a: [1, 2] } });
    expect(first.body.assignments).toEqual({});
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    const etag = first.headers.get("etag") ?? "";
    const again = await getConfig(project, player, { "If-None-Match": etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("etag")).toBe(etag);
    await rc.upsertKey({ projectId, key: "speed", type: "number", defaultValue: 2, reason });
    await definitionCachesExpired();
    const changed = await getConfig(project, player, { "If-None-Match": etag });
    expect(changed.status).toBe(200);
    expect(changed.body.values.speed).toBe(2);
    expect(changed.body.version).toBeGreaterThan(first.body.version);
  });

  it("another project's override never applies", async () => {
    const a = await ownedProject();
    const b = await ownedProject();
    for (const s of [a, b])
      await s.rc.upsertKey({ projectId: s.project.projectId, key: "coins", type: "number", defaultValue: 100, reason });
    await b.rc.createOverride({ projectId: b.project.projectId, key: "coins", value: 999, reason });
    await definitionCachesExpired();
    const player = await anonymousPlayer(a.project.clientKey);
    expect((await getConfig(a.project, player)).body.values).toEqual({ coins: 100 });
    const other = await anonymousPlayer(b.project.clientKey);
    expect((await getConfig(b.project, other)).body.values).toEqual({ coins: 999 });
  });

  it("a running experiment assigns a player once: 10 parallel GETs agree and store one row", async () => {
    const { project, rc } = await ownedProject();
    const projectId = project.projectId;
    await experimentOnKey(rc, { projectId, ...PRICE_TEST, reason });
    await definitionCachesExpired();
    const player = await anonymousPlayer(project.clientKey);
    const answers = await Promise.all(Array.from({ length: 10 }, () => getConfig(project, player)));
    const variants = new Set(answers.map((r) => r.body.assignments["price-test"]));
    expect(variants.size).toBe(1);
    const variant = [...variants][0];
    expect(["cheap", "dear"]).toContain(variant);
    expect(new Set(answers.map((r) => r.body.values.price))).toEqual(new Set([variant === "cheap" ? 3 : 7]));
    const { rows } = await pool().query("SELECT variant FROM experiment_assignments WHERE project_id = $1 AND player_id = $2", [
      projectId,
      player.playerId,
    ]);
    expect(rows).toEqual([{ variant }]);
  });

  it("a stored assignment wins over the bucket the player would get now", async () => {
    const { project, rc } = await ownedProject();
    const projectId = project.projectId;
    await experimentOnKey(rc, { projectId, ...COLOR_TEST, reason });
    const player = await anonymousPlayer(project.clientKey);
    await pool().query(
      "INSERT INTO experiment_assignments (project_id, experiment_id, player_id, variant) VALUES ($1, 'color-test', $2, 'green')",
      [projectId, player.playerId],
    );
    await definitionCachesExpired();
    const res = await getConfig(project, player);
    expect(res.body.assignments).toEqual({ "color-test": "green" });
    expect(res.body.values.color).toBe("green");
  });

  it("an override for an experiment's players applies in the answer that assigns the player, not from the next one", async () => {
    const { project, rc } = await ownedProject();
    const projectId = project.projectId;
    await experimentOnKey(rc, { projectId, ...COLOR_TEST, reason });
    await rc.upsertKey({ projectId, key: "banner", type: "string", defaultValue: "none", reason });
    await rc.upsertAudience({
      projectId,
      id: "testers",
      name: "In the test",
      rules: { all: [{ field: "experiment", experimentId: "color-test" }] },
      reason,
    });
    await rc.createOverride({ projectId, key: "banner", audienceId: "testers", value: "welcome-tester", reason });
    await definitionCachesExpired();
    const player = await anonymousPlayer(project.clientKey);
    const first = await getConfig(project, player);
    expect(Object.keys(first.body.assignments)).toEqual(["color-test"]);
    expect(first.body.values.banner).toBe("welcome-tester");
  });
});

/**
 * The statements `work` sends, by their first words, leaving out the definitions' reads (a
 * per-process cache serves those: server/services/remote-config/definitions.ts).
 */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === "string" ? first : ((first as { text?: string } | undefined)?.text ?? "");
    seen.push(text.replace(/\s+/g, " ").trim());
    return original.apply(this, args);
  };
  try {
    await work();
  } finally {
    proto.query = original;
  }
  const definitionRead =
    /^SELECT .* FROM (projects|remote_config_keys|remote_config_overrides|audiences|experiments) WHERE project_id = \$1/;
  return seen
    .filter((sql) => !definitionRead.test(sql))
    .map((sql) =>
      /^(BEGIN|COMMIT)/.test(sql)
        ? (sql.split(" ")[0] ?? sql)
        : /experiment_assignments.*ON CONFLICT DO NOTHING/.test(sql)
          ? "insert assignment"
          : /INSERT INTO webhook_events/.test(sql)
            ? "outbox"
            : /^SELECT .* FROM players p WHERE/.test(sql)
              ? "player facts"
              : sql.slice(0, 60),
    );
}

describe("GET /config's statement budget", () => {
  it("a stored assignment costs one statement; a first exposure adds its INSERT, and the outbox only when the project has an endpoint", async () => {
    const { project, rc } = await ownedProject();
    const projectId = project.projectId;
    await experimentOnKey(rc, { projectId, ...PRICE_TEST, experiment: { id: "budget", name: "Budget" }, reason });
    const actorOf = async () => ({
      kind: "player" as const,
      projectId,
      playerId: (await anonymousPlayer(project.clientKey)).playerId,
      via: "token" as const,
    });
    const exposed = async () => {
      // The clock stands still while it runs: what the warm-up learns ("no endpoint", the
      // definitions) is cached for a few seconds, which a busy machine can spend between calls.
      vi.useFakeTimers({ toFake: ["Date"] });
      try {
        // Another player first: the first exposure of a project also learns whether it has an endpoint (one outbox statement).
        await playerConfig({ actor: await actorOf() });
        const actor = await actorOf();
        return {
          first: await statementsOf(() => playerConfig({ actor })),
          again: await statementsOf(() => playerConfig({ actor })),
        };
      } finally {
        vi.useRealTimers();
      }
    };
    expect(await exposed()).toEqual({ first: ["player facts", "insert assignment"], again: ["player facts"] });

    await pool().query(
      "INSERT INTO webhook_endpoints (id, project_id, url, event_types, secret) VALUES (gen_random_uuid(), $1, 'https://hooks.example.com/x', $2, 'whsec_test')",
      [projectId, ["experiment.assigned"]],
    );
    await endpointsChanged(projectId);
    expect(await exposed()).toEqual({
      first: ["player facts", "BEGIN", "insert assignment", "outbox", "COMMIT"],
      again: ["player facts"],
    });
  });
});

describe("client identification", () => {
  const seen = async (playerId: string) =>
    (
      await pool().query<{ client_version: string | null; platform: string | null; last_seen_at: Date | null }>(
        "SELECT client_version, platform, last_seen_at FROM players WHERE id = $1",
        [playerId],
      )
    ).rows[0];
  const sessions = async (playerId: string) =>
    (
      await pool().query<{ client_version: string | null; platform: string | null }>(
        "SELECT client_version, platform FROM sessions WHERE player_id = $1 ORDER BY created_at",
        [playerId],
      )
    ).rows;

  it("sign-in records X-Client-Version and X-Platform on the session and the player, with the last-seen time", async () => {
    const project = await makeProject();
    const res = await api<TestPlayer>("POST", "/api/v1/auth/anonymous", {
      key: project.clientKey,
      headers: { "X-Client-Version": "1.4.2+build.7", "X-Platform": "ios" },
    });
    expect(res.status).toBe(200);
    expect(await seen(res.body.playerId)).toMatchObject({
      client_version: "1.4.2+build.7",
      platform: "ios",
      last_seen_at: expect.any(Date),
    });
    expect(await sessions(res.body.playerId)).toEqual([{ client_version: "1.4.2+build.7", platform: "ios" }]);
  });

  it("refresh records good values, ignores malformed ones (never refused), and moves last seen", async () => {
    const project = await makeProject();
    const signedIn = await api<TestPlayer>("POST", "/api/v1/auth/anonymous", {
      key: project.clientKey,
      headers: { "X-Client-Version": "1.0.0", "X-Platform": "android" },
    });
    const before = await seen(signedIn.body.playerId);
    const refreshed = await api<TestPlayer>("POST", "/api/v1/auth/refresh", {
      key: project.clientKey,
      body: { refreshToken: signedIn.body.refreshToken },
      headers: { "X-Client-Version": "1.1.0", "X-Platform": "Android OS!" },
    });
    expect(refreshed.status).toBe(200);
    const after = await seen(signedIn.body.playerId);
    expect(after).toMatchObject({ client_version: "1.1.0", platform: "android" });
    expect(after?.last_seen_at?.getTime()).toBeGreaterThanOrEqual(before?.last_seen_at?.getTime() ?? Number.POSITIVE_INFINITY);
    expect(await sessions(signedIn.body.playerId)).toEqual([{ client_version: "1.1.0", platform: "android" }]);
  });

  it("a malformed version at sign-in is ignored and the sign-in succeeds", async () => {
    const project = await makeProject();
    const res = await api<TestPlayer>("POST", "/api/v1/auth/anonymous", {
      key: project.clientKey,
      headers: { "X-Client-Version": "x".repeat(33), "X-Platform": "webgl" },
    });
    expect(res.status).toBe(200);
    expect(await seen(res.body.playerId)).toMatchObject({ client_version: null, platform: "webgl" });
  });
});
