import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { type ApiOptions, api, apiRawPath, expectError } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";

type Rec = { key: string; value: unknown; version: number; visibility: string; createdAt: string; updatedAt: string };
type Conflicts = {
  error: { code: string; details: { conflicts: Array<{ key: string; expectedVersion: number | null; currentVersion: number | null }> } };
};

let project: TestProject;
let owner: TestPlayer;
let other: TestPlayer;
beforeAll(async () => {
  project = await makeProject();
  owner = await anonymousPlayer(project.clientKey);
  other = await anonymousPlayer(project.clientKey);
});

const as = (p: TestPlayer): ApiOptions => ({ key: project.clientKey, token: p.accessToken });
const asServer = (p: TestPlayer): ApiOptions => ({ key: project.serverKey, headers: { "X-Player-Id": p.playerId } });
const url = (id: string, key?: string) => `/api/v1/players/${id}/data${key ? `/${key}` : ""}`;
const put = (who: ApiOptions, id: string, key: string, body: unknown, headers: Record<string, string> = {}) =>
  api<Rec>("PUT", url(id, key), { ...who, body, headers: { ...who.headers, ...headers } });

/** Every record of a player as the server key sees them (all visibilities): what a refused write must leave alone. */
async function stateOf(p: TestPlayer): Promise<Array<[string, unknown, number, string]>> {
  const res = await api<Rec[]>("GET", url("me"), asServer(p));
  expect(res.status).toBe(200);
  return res.body.map((r) => [r.key, r.value, r.version, r.visibility]);
}

describe("PUT / GET / DELETE /players/{id}/data/{key}", () => {
  it("creates (201), reads with ETag, updates (200) with a new version, and deletes (204)", async () => {
    const created = await put(as(owner), "me", "settings", { value: { volume: 0.8, lang: "fr" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ key: "settings", value: { volume: 0.8, lang: "fr" }, version: 1, visibility: "private" });
    expect(created.headers.get("etag")).toBe('"1"');
    const read = await api<Rec>("GET", url(owner.playerId, "settings"), as(owner));
    expect(read.status).toBe(200);
    expect(read.headers.get("etag")).toBe('"1"');
    expect(read.body.value).toEqual({ volume: 0.8, lang: "fr" });
    const updated = await put(as(owner), "me", "settings", { value: [1, "two", null] });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, value: [1, "two", null], visibility: "private" });
    expect(Date.parse(updated.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(updated.body.createdAt));
    expect((await api("DELETE", url("me", "settings"), as(owner))).status).toBe(204);
    expectError(await api("GET", url("me", "settings"), as(owner)), 404, "KEY_NOT_FOUND");
    expectError(await api("DELETE", url("me", "settings"), as(owner)), 404, "KEY_NOT_FOUND");
  });

  it("keeps visibility on update when the body leaves it out", async () => {
    expect((await put(as(owner), "me", "profile", { value: 1, visibility: "public" })).status).toBe(201);
    const res = await put(as(owner), "me", "profile", { value: 2 });
    expect(res.body).toMatchObject({ value: 2, version: 2, visibility: "public" });
    expect((await api<Rec>("GET", url(owner.playerId, "profile"), as(other))).body).toMatchObject({ value: 2, visibility: "public" });
  });

  it("lists the owner's records sorted by key; another player sees only public ones", async () => {
    const p = await anonymousPlayer(project.clientKey);
    expect((await put(as(p), "me", "b-public", { value: "b", visibility: "public" })).status).toBe(201);
    expect((await put(as(p), "me", "a-private", { value: "a" })).status).toBe(201);
    expect((await put(asServer(p), "me", "c-protected", { value: "c", visibility: "protected" })).status).toBe(201);
    const mine = await api<Rec[]>("GET", url("me"), as(p));
    expect(mine.body.map((r) => r.key)).toEqual(["a-private", "b-public", "c-protected"]);
    const theirs = await api<Rec[]>("GET", url(p.playerId), as(other));
    expect(theirs.body.map((r) => r.key)).toEqual(["b-public"]);
  });

  it("answers 404 PLAYER_NOT_FOUND for an unknown player or another project's player", async () => {
    expectError(await api("GET", url("00000000-0000-7000-8000-000000000000"), as(owner)), 404, "PLAYER_NOT_FOUND");
    const foreign = await makeProject();
    const stranger = await anonymousPlayer(foreign.clientKey);
    expectError(await api("GET", url(stranger.playerId), as(owner)), 404, "PLAYER_NOT_FOUND");
    expectError(await api("GET", url(stranger.playerId, "anything"), as(owner)), 404, "KEY_NOT_FOUND");
  });

  it("answers 400, not 500, for strings the database cannot store, deep nesting and __proto__ keys, storing nothing", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const raw = (body: string) => api("PUT", url("me", "odd"), { ...as(p), body });
    for (const body of [
      '{"value":"x\\u0000y"}',
      '{"value":"\\ud800"}',
      '{"value":{"\\u0000":1}}',
      '{"value":{"__proto__":{"x":1},"a":2}}',
    ]) {
      expectError(await raw(body), 400, "VALIDATION_ERROR");
    }
    expectError(await raw(`{"value":${"[".repeat(5000)}${"]".repeat(5000)}}`), 400, "VALIDATION_ERROR");
    expectError(await api("PATCH", url("me"), { ...as(p), body: '{"set":{"__proto__":{"value":1}}}' }), 400, "VALIDATION_ERROR");
    expect(await stateOf(p)).toEqual([]);
    const nested = `${"[".repeat(60)}${"]".repeat(60)}`;
    expect((await raw(`{"value":${nested}}`)).status).toBe(201);
    expectError(await raw(`{"value":${"[".repeat(70)}${"]".repeat(70)}}`), 400, "VALIDATION_ERROR");
    expect(await stateOf(p)).toEqual([["odd", JSON.parse(nested), 1, "private"]]);
    expect((await raw('{"value":"emoji 🎮 and \\ud83c\\udfae are fine"}')).status).toBe(200);
    expect((await api<Rec>("GET", url("me", "odd"), as(p))).body).toMatchObject({ value: "emoji 🎮 and 🎮 are fine", version: 2 });
  });

  it("rejects malformed keys, ids and bodies, storing nothing", async () => {
    const p = await anonymousPlayer(project.clientKey);
    expect((await put(as(p), "me", "k".repeat(128), { value: 1 })).status).toBe(201);
    const before = await stateOf(p);
    expectError(await put(as(p), "me", "has%20space", { value: 1 }), 400, "VALIDATION_ERROR");
    expectError(await put(as(p), "me", "k".repeat(129), { value: 1 }), 400, "VALIDATION_ERROR");
    expectError(await put(as(p), "not-a-uuid", "k", { value: 1 }), 400, "VALIDATION_ERROR");
    expectError(await put(as(p), "me", "k", {}), 400, "VALIDATION_ERROR");
    expectError(await put(as(p), "me", "k", { value: 1, visibility: "secret" }), 400, "VALIDATION_ERROR");
    expectError(await put(as(p), "me", "k", { value: 1, owner: "x" }), 400, "VALIDATION_ERROR");
    expectError(await api("PUT", url("me", "k"), { ...as(p), body: "{not json" }), 400, "INVALID_JSON");
    expectError(
      await api("PUT", url("me", "k"), { ...as(p), body: '{"value":1}', headers: { "Content-Type": "text/plain" } }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    expectError(await put(as(p), "me", "k", { value: 1 }, { "If-Match": "abc" }), 400, "VALIDATION_ERROR");
    expect(await stateOf(p)).toEqual(before);
    expect(before).toEqual([["k".repeat(128), 1, 1, "private"]]);
  });
});

describe("visibility matrix", () => {
  const cases: Array<[string, "private" | "public" | "protected"]> = [
    ["priv", "private"],
    ["pub", "public"],
    ["prot", "protected"],
  ];
  let p: TestPlayer;
  beforeAll(async () => {
    p = await anonymousPlayer(project.clientKey);
    for (const [key, visibility] of cases) expect((await put(asServer(p), "me", key, { value: key, visibility })).status).toBe(201);
  });

  it.each([
    ["owner", "priv", 200],
    ["owner", "pub", 200],
    ["owner", "prot", 200],
    ["other player", "priv", 404],
    ["other player", "pub", 200],
    ["other player", "prot", 404],
    ["server key as owner", "priv", 200],
    ["server key as owner", "pub", 200],
    ["server key as owner", "prot", 200],
  ])("%s reads %s → %i", async (who, key, status) => {
    const opts = who === "owner" ? as(p) : who === "other player" ? as(other) : asServer(p);
    const res = await api("GET", url(p.playerId, key), opts);
    expect(res.status).toBe(status);
    if (status === 404) expectError(res, 404, "KEY_NOT_FOUND");
  });

  it.each([
    ["owner", "priv", 200, null],
    ["owner", "pub", 200, null],
    ["owner", "prot", 403, "CLIENT_WRITE_FORBIDDEN"],
    ["other player", "priv", 403, "FORBIDDEN"],
    ["other player", "pub", 403, "FORBIDDEN"],
    ["other player", "prot", 403, "FORBIDDEN"],
    ["server key as owner", "priv", 200, null],
    ["server key as owner", "pub", 200, null],
    ["server key as owner", "prot", 200, null],
  ])("%s writes %s → %i", async (who, key, status, code) => {
    const opts = who === "owner" ? as(p) : who === "other player" ? as(other) : asServer(p);
    const before = await api<Rec>("GET", url(p.playerId, key), asServer(p));
    const res = await put(opts, p.playerId, key, { value: `${who} was here` });
    expect(res.status).toBe(status);
    if (code) expectError(res, status, code);
    const after = await api<Rec>("GET", url(p.playerId, key), asServer(p));
    if (code) expect(after.body).toEqual(before.body);
    else
      expect(after.body).toMatchObject({ value: `${who} was here`, version: before.body.version + 1, visibility: before.body.visibility });
  });

  it("the owner cannot create a protected key or delete one, changing nothing; a server key can", async () => {
    const before = await stateOf(p);
    expect(before.map(([key]) => key)).toContain("prot");
    expectError(await put(as(p), "me", "new-prot", { value: 1, visibility: "protected" }), 403, "CLIENT_WRITE_FORBIDDEN");
    expectError(await api("DELETE", url("me", "prot"), as(p)), 403, "CLIENT_WRITE_FORBIDDEN");
    expectError(await api("PATCH", url("me"), { ...as(p), body: { delete: ["prot"] } }), 403, "CLIENT_WRITE_FORBIDDEN");
    expectError(
      await api("PATCH", url("me"), { ...as(p), body: { set: { priv: { value: "lost" }, prot: { value: "lost" } } } }),
      403,
      "CLIENT_WRITE_FORBIDDEN",
    );
    expect(await stateOf(p)).toEqual(before);
    expect((await api("DELETE", url("me", "prot"), asServer(p))).status).toBe(204);
    expect(await stateOf(p)).toEqual(before.filter(([key]) => key !== "prot"));
  });

  it("other players cannot delete or patch someone else's data, changing nothing", async () => {
    const before = await stateOf(p);
    expect(before.map(([key]) => key)).toContain("pub");
    expectError(await api("DELETE", url(p.playerId, "pub"), as(other)), 403, "FORBIDDEN");
    expectError(await api("PATCH", url(p.playerId), { ...as(other), body: { set: { x: { value: 1 } } } }), 403, "FORBIDDEN");
    expectError(await api("PATCH", url(p.playerId), { ...as(other), body: { delete: ["pub"] } }), 403, "FORBIDDEN");
    expect(await stateOf(p)).toEqual(before);
  });
});

describe("versions", () => {
  it("If-Match writes only over the expected version; a mismatch is 412 with the conflict", async () => {
    expect((await put(as(owner), "me", "counter", { value: 1 })).status).toBe(201);
    expect((await put(as(owner), "me", "counter", { value: 2 }, { "If-Match": '"1"' })).status).toBe(200);
    const stale = await api<Conflicts>("PUT", url("me", "counter"), { ...as(owner), body: { value: 3 }, headers: { "If-Match": '"1"' } });
    expectError(stale, 412, "VERSION_CONFLICT");
    expect(stale.body.error.details.conflicts).toEqual([{ key: "counter", expectedVersion: 1, currentVersion: 2 }]);
    expect((await api<Rec>("GET", url("me", "counter"), as(owner))).body.value).toBe(2);
    const absent = await api<Conflicts>("PUT", url("me", "never-written"), {
      ...as(owner),
      body: { value: 1 },
      headers: { "If-Match": '"1"' },
    });
    expect(absent.body.error.details.conflicts).toEqual([{ key: "never-written", expectedVersion: 1, currentVersion: null }]);
    expectError(await api("GET", url("me", "never-written"), as(owner)), 404, "KEY_NOT_FOUND");
  });

  it("If-None-Match: * creates only", async () => {
    expect((await put(as(owner), "me", "once", { value: 1 }, { "If-None-Match": "*" })).status).toBe(201);
    const again = await api<Conflicts>("PUT", url("me", "once"), { ...as(owner), body: { value: 2 }, headers: { "If-None-Match": "*" } });
    expectError(again, 412, "VERSION_CONFLICT");
    expect(again.body.error.details.conflicts[0]).toEqual({ key: "once", expectedVersion: null, currentVersion: 1 });
    expect((await api<Rec>("GET", url("me", "once"), as(owner))).body).toMatchObject({ value: 1, version: 1 });
  });

  it("DELETE of an absent key is 404 even with If-Match, and creates nothing", async () => {
    expectError(await api("DELETE", url("me", "ghost"), { ...as(owner), headers: { "If-Match": '"1"' } }), 404, "KEY_NOT_FOUND");
    expectError(await api("GET", url("me", "ghost"), as(owner)), 404, "KEY_NOT_FOUND");
  });

  it("DELETE honours If-Match", async () => {
    expect((await put(as(owner), "me", "del", { value: 1 })).status).toBe(201);
    expect((await put(as(owner), "me", "del", { value: 2 })).status).toBe(200);
    expectError(await api("DELETE", url("me", "del"), { ...as(owner), headers: { "If-Match": '"1"' } }), 412, "VERSION_CONFLICT");
    expect((await api<Rec>("GET", url("me", "del"), as(owner))).body).toMatchObject({ value: 2, version: 2 });
    expect((await api("DELETE", url("me", "del"), { ...as(owner), headers: { "If-Match": '"2"' } })).status).toBe(204);
    expectError(await api("GET", url("me", "del"), as(owner)), 404, "KEY_NOT_FOUND");
  });

  it("50 parallel If-Match writes with the same version: exactly one succeeds", async () => {
    const p = await anonymousPlayer(project.clientKey);
    expect((await put(as(p), "me", "race", { value: 0 })).status).toBe(201);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => put(as(p), "me", "race", { value: i + 1 }, { "If-Match": '"1"' })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 412)).toHaveLength(49);
    const final = await api<Rec>("GET", url("me", "race"), as(p));
    expect(final.body.version).toBe(2);
    expect(final.body.value).toBe(results.find((r) => r.status === 200)?.body.value);
  });
});

describe("PATCH /players/{id}/data", () => {
  it("sets and deletes in one step and returns the written records", async () => {
    const p = await anonymousPlayer(project.clientKey);
    expect((await put(as(p), "me", "old", { value: 1 })).status).toBe(201);
    const res = await api<Rec[]>("PATCH", url("me"), {
      ...as(p),
      body: { set: { b: { value: 2 }, a: { value: 1, visibility: "public" } }, delete: ["old", "absent"] },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((r) => [r.key, r.version, r.visibility])).toEqual([
      ["a", 1, "public"],
      ["b", 1, "private"],
    ]);
    expect(await stateOf(p)).toEqual([
      ["a", 1, 1, "public"],
      ["b", 2, 1, "private"],
    ]);
  });

  it("with one stale version changes nothing and lists every conflict", async () => {
    const p = await anonymousPlayer(project.clientKey);
    for (const [key, value] of [
      ["x", 1],
      ["y", 1],
      ["y", 2],
    ] as const)
      expect([200, 201]).toContain((await put(as(p), "me", key, { value })).status);
    const res = await api<Conflicts>("PATCH", url("me"), {
      ...as(p),
      body: {
        set: { x: { value: 10, version: 1 }, y: { value: 20, version: 1 }, z: { value: 30, version: 0 }, w: { value: 1 } },
        delete: ["x2"],
      },
    });
    expectError(res, 412, "VERSION_CONFLICT");
    expect(res.body.error.details.conflicts).toEqual([{ key: "y", expectedVersion: 1, currentVersion: 2 }]);
    const all = await api<Rec[]>("GET", url("me"), as(p));
    expect(all.body.map((r) => [r.key, r.value, r.version])).toEqual([
      ["x", 1, 1],
      ["y", 2, 2],
    ]);
    const two = await api<Conflicts>("PATCH", url("me"), {
      ...as(p),
      body: { set: { x: { value: 0, version: 5 }, y: { value: 0, version: 0 } } },
    });
    expect(two.body.error.details.conflicts).toEqual([
      { key: "x", expectedVersion: 5, currentVersion: 1 },
      { key: "y", expectedVersion: null, currentVersion: 2 },
    ]);
    expect(await stateOf(p)).toEqual([
      ["x", 1, 1, "private"],
      ["y", 2, 2, "private"],
    ]);
  });

  it("validates: at most 100 operations, not empty, no key both set and deleted; a refused batch changes nothing", async () => {
    const set = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, { value: i }]));
    const p = await anonymousPlayer(project.clientKey);
    expect((await api("PATCH", url("me"), { ...as(p), body: { set } })).status).toBe(200);
    const before = await stateOf(p);
    expect(before).toHaveLength(100);
    const changed = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, { value: -i }]));
    expectError(await api("PATCH", url("me"), { ...as(p), body: { set: changed, delete: ["extra"] } }), 400, "VALIDATION_ERROR");
    expectError(await api("PATCH", url("me"), { ...as(p), body: {} }), 400, "VALIDATION_ERROR");
    expectError(
      await api("PATCH", url("me"), { ...as(p), body: { set: { k1: { value: "x" } }, delete: ["k1"] } }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(
      await api("PATCH", url("me"), { ...as(p), body: { set: { k2: { value: "x" }, "bad key": { value: 1 } }, delete: ["k3"] } }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(await api("PATCH", url("me"), { ...as(p), body: { delete: ["k4", "k4"] } }), 400, "VALIDATION_ERROR");
    expect(await stateOf(p)).toEqual(before);
  });

  it("parallel batches over the same keys in different orders all finish (no deadlock)", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const keys = Array.from({ length: 20 }, (_, i) => `k${String(i).padStart(2, "0")}`);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const order = i % 2 ? [...keys].reverse() : keys;
        return api("PATCH", url("me"), { ...as(p), body: { set: Object.fromEntries(order.map((k) => [k, { value: i }])) } });
      }),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    const all = await api<Rec[]>("GET", url("me"), as(p));
    expect(all.body.map((r) => [r.key, r.version])).toEqual(keys.map((k) => [k, 10]));
  });
});

describe("limits", () => {
  const MiB = 1024 * 1024;
  const stringOfBytes = (n: number) => "x".repeat(n - 2); // JSON adds two quotes

  it("value: exactly 1 MiB serialised is accepted, one byte more is 413", async () => {
    const p = await anonymousPlayer(project.clientKey);
    expect((await put(as(p), "me", "big", { value: stringOfBytes(MiB) })).status).toBe(201);
    const over = await api("PUT", url("me", "big2"), { ...as(p), body: { value: stringOfBytes(MiB + 1) } });
    expectError(over, 413, "PAYLOAD_TOO_LARGE");
    expect(over.body).toMatchObject({ error: { details: { limitBytes: MiB } } });
    expect((await stateOf(p)).map(([key, , version]) => [key, version])).toEqual([["big", 1]]);
  });

  it("bytes per player: 5 MiB is accepted, one byte over is 422, and parallel writes cannot pass it together", async () => {
    const p = await anonymousPlayer(project.clientKey);
    for (let i = 0; i < 5; i++) expect((await put(as(p), "me", `slot${i}`, { value: stringOfBytes(MiB) })).status).toBe(201);
    const over = await put(as(p), "me", "tiny", { value: 1 });
    expectError(over, 422, "LIMIT_EXCEEDED");
    expect(over.body).toMatchObject({ error: { details: { limit: "bytesPerPlayer", max: 5 * MiB } } });
    expectError(await api("GET", url("me", "tiny"), as(p)), 404, "KEY_NOT_FOUND");
    expect((await put(as(p), "me", "slot0", { value: stringOfBytes(MiB - 2) })).status).toBe(200); // now 2 bytes under
    const racers = await Promise.all(Array.from({ length: 5 }, (_, i) => put(as(p), "me", `race${i}`, { value: 1 })));
    expect(racers.map((r) => r.status).sort()).toEqual([201, 201, 422, 422, 422]);
    expect(await prisma().playerData.count({ where: { playerId: p.playerId } })).toBe(7);
  }, 60_000);

  it("keys per player: 2,000 are accepted, the 2,001st is 422, parallel creates cannot pass it together", async () => {
    const p = await anonymousPlayer(project.clientKey);
    for (let batch = 0; batch < 20; batch++) {
      const set = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`key${batch * 100 + i}`, { value: i }]));
      if (batch === 19) delete set.key1999;
      expect((await api("PATCH", url("me"), { ...as(p), body: { set } })).status).toBe(200);
    }
    expect(await prisma().playerData.count({ where: { playerId: p.playerId } })).toBe(1_999);
    const racers = await Promise.all(Array.from({ length: 5 }, (_, i) => put(as(p), "me", `last${i}`, { value: i })));
    expect(racers.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422]);
    expect(await prisma().playerData.count({ where: { playerId: p.playerId } })).toBe(2_000);
    const refused = racers.find((r) => r.status === 422);
    expect(refused?.body).toMatchObject({
      error: { code: "LIMIT_EXCEEDED", details: { limit: "keysPerPlayer", max: 2_000, current: 2_000 } },
    });
    expect((await put(as(p), "me", "key0", { value: "update is fine at the limit" })).status).toBe(200);
    expectError(await api("PATCH", url("me"), { ...as(p), body: { set: { brandNew: { value: 1 } } } }), 422, "LIMIT_EXCEEDED");
    expectError(await api("GET", url("me", "brandNew"), as(p)), 404, "KEY_NOT_FOUND");
    expect((await api("PATCH", url("me"), { ...as(p), body: { set: { brandNew: { value: 1 } }, delete: ["key0"] } })).status).toBe(200);
    expect((await api<Rec>("GET", url("me", "brandNew"), as(p))).body.value).toBe(1);
    expectError(await api("GET", url("me", "key0"), as(p)), 404, "KEY_NOT_FOUND");
    expect(await prisma().playerData.count({ where: { playerId: p.playerId } })).toBe(2_000);
  }, 60_000);
});

describe("keys named like Object.prototype members and reserved keys", () => {
  const PROTOTYPE_NAMES = ["constructor", "toString", "valueOf", "hasOwnProperty", "__defineGetter__", "isPrototypeOf"];

  it.each(PROTOTYPE_NAMES)("%s works through PUT, GET, list, PATCH set/delete and DELETE, read back each time", async (key) => {
    const p = await anonymousPlayer(project.clientKey);
    expect((await put(as(p), "me", key, { value: 1 })).status).toBe(201);
    expect((await api<Rec>("GET", url("me", key), as(p))).body).toMatchObject({ key, value: 1, version: 1 });
    const patched = await api<Rec[]>("PATCH", url("me"), { ...as(p), body: { set: { [key]: { value: 2, version: 1 } } } });
    expect(patched.status).toBe(200);
    expect((await api<Rec>("GET", url("me", key), as(p))).body).toMatchObject({ value: 2, version: 2 });
    expect((await api<Rec[]>("GET", url("me"), as(p))).body.map((r) => r.key)).toEqual([key]);
    const deleted = await api<Rec[]>("PATCH", url("me"), { ...as(p), body: { delete: [key] } });
    expect(deleted.status).toBe(200);
    expectError(await api("GET", url("me", key), as(p)), 404, "KEY_NOT_FOUND");
    expect((await put(as(p), "me", key, { value: 3 })).status).toBe(201);
    expect((await api("DELETE", url("me", key), as(p))).status).toBe(204);
    expectError(await api("GET", url("me", key), as(p)), 404, "KEY_NOT_FOUND");
  });

  it("one PATCH sets some prototype-named keys and deletes others (not taken for the same key)", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const res = await api<Rec[]>("PATCH", url("me"), {
      ...as(p),
      body: { set: { toString: { value: 1 }, valueOf: { value: 2, visibility: "public" } } },
    });
    expect(res.status).toBe(200);
    const both = await api<Rec[]>("PATCH", url("me"), {
      ...as(p),
      body: { set: { constructor: { value: 3, version: 0 }, hasOwnProperty: { value: 4 } }, delete: ["toString", "isPrototypeOf"] },
    });
    expect(both.status).toBe(200);
    expect(both.body.map((r) => [r.key, r.value])).toEqual([
      ["constructor", 3],
      ["hasOwnProperty", 4],
    ]);
    expect(await stateOf(p)).toEqual([
      ["constructor", 3, 1, "private"],
      ["hasOwnProperty", 4, 1, "private"],
      ["valueOf", 2, 1, "public"],
    ]);
    expect((await api<Rec[]>("GET", url(p.playerId), as(other))).body.map((r) => r.key)).toEqual(["valueOf"]);
  });

  it("refuses `.`, `..` and `__proto__` in PATCH set and delete, `__proto__` in data and save paths (400); dot segments address no key; nothing stored", async () => {
    const p = await anonymousPlayer(project.clientKey);
    for (const key of [".", ".."]) {
      expectError(await api("PATCH", url("me"), { ...as(p), body: { set: { [key]: { value: 1 } } } }), 400, "VALIDATION_ERROR");
      expectError(await api("PATCH", url("me"), { ...as(p), body: { delete: [key] } }), 400, "VALIDATION_ERROR");
    }
    expectError(await api("PATCH", url("me"), { ...as(p), body: { delete: ["__proto__"] } }), 400, "VALIDATION_ERROR");
    expectError(await put(as(p), "me", "__proto__", { value: 1 }), 400, "VALIDATION_ERROR");
    expectError(await api("GET", url("me", "__proto__"), as(p)), 400, "VALIDATION_ERROR");
    expectError(await api("PUT", `/api/v1/saves/__proto__`, { ...as(p), body: { data: 1 } }), 400, "VALIDATION_ERROR");
    expectError(await api("PUT", url("me", "%5F%5Fproto%5F%5F"), { ...as(p), body: { value: 1 } }), 400, "VALIDATION_ERROR");
    expectError(await api("DELETE", url("me", "__proto__"), as(p)), 400, "VALIDATION_ERROR");
    // `%2E` / `%2E%2E` sent raw are dot segments (fetch would resolve them before sending): they address no key.
    for (const key of ["%2E", "%2E%2e"]) {
      expect((await apiRawPath("PUT", url("me", key), { ...as(p), body: { value: 1 } })).status).toBeGreaterThanOrEqual(400);
      expect((await apiRawPath("DELETE", url("me", key), as(p))).status).toBeGreaterThanOrEqual(400);
    }
    expect(await prisma().playerData.count({ where: { playerId: p.playerId } })).toBe(0);
    expect(await prisma().playerSave.count({ where: { playerId: p.playerId } })).toBe(0);
  });
});

describe("usage counters", () => {
  it("after a parallel mix of PUT, PATCH and DELETE the player's counters equal the sum over their rows", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const keys = Array.from({ length: 8 }, (_, i) => `u${i}`);
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const ops = Array.from({ length: 60 }, () => {
      const key = keys[Math.floor(random() * keys.length)] ?? "u0";
      const size = Math.floor(random() * 500);
      const pick = random();
      if (pick < 0.5) return () => put(as(p), "me", key, { value: "x".repeat(size) });
      if (pick < 0.75) return () => api("DELETE", url("me", key), as(p));
      return () =>
        api("PATCH", url("me"), { ...as(p), body: { set: { [key]: { value: size } }, delete: keys.filter((k) => k !== key).slice(0, 2) } });
    });
    const results = await Promise.all(ops.map((op) => op()));
    expect(results.every((r) => [200, 201, 204, 404].includes(r.status))).toBe(true);
    const [counters, actual] = await Promise.all([
      prisma().player.findUniqueOrThrow({ where: { id: p.playerId }, select: { dataKeys: true, dataBytes: true } }),
      prisma().playerData.aggregate({ where: { playerId: p.playerId }, _count: true, _sum: { sizeBytes: true } }),
    ]);
    expect({ keys: counters.dataKeys, bytes: Number(counters.dataBytes) }).toEqual({
      keys: actual._count,
      bytes: actual._sum.sizeBytes ?? 0,
    });
  });
});
