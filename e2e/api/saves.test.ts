import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import { type ApiOptions, api, apiRawPath, expectError } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";

type Meta = {
  key: string;
  version: number;
  sizeBytes: number;
  sha256: string;
  meta: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
};
type Save = Meta & { data: unknown };

let project: TestProject;
beforeAll(async () => {
  project = await makeProject();
});

const as = (p: TestPlayer): ApiOptions => ({ key: project.clientKey, token: p.accessToken });
const put = (p: TestPlayer, key: string, body: unknown, headers: Record<string, string> = {}) =>
  api<Meta>("PUT", `/api/v1/saves/${key}`, { ...as(p), body, headers });

describe("cloud saves", () => {
  it("creates, reads back byte-for-byte with sha256 and ETag, updates and deletes", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const data = { level: 3, inventory: ["sword", "potion"], pos: { x: 1.5, y: -2 }, note: "héllo ✓" };
    const created = await put(p, "slot1", { data, meta: { label: "Chapter 3", playtimeSeconds: 5400 } });
    expect(created.status).toBe(201);
    const text = JSON.stringify(data);
    expect(created.body).toMatchObject({
      key: "slot1",
      version: 1,
      sizeBytes: Buffer.byteLength(text),
      sha256: createHash("sha256").update(text).digest("hex"),
      meta: { label: "Chapter 3", playtimeSeconds: 5400 },
    });
    expect(created.headers.get("etag")).toBe('"1"');
    const read = await api<Save>("GET", "/api/v1/saves/slot1", as(p));
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(data);
    // The bytes of `data` in the raw response text, not a re-serialisation of the parsed value.
    const rawData = /"data":(\{.*\})\}$/.exec(read.text)?.[1]; // `data` is the last field
    expect(rawData).toBe(text);
    expect(
      createHash("sha256")
        .update(rawData ?? "", "utf8")
        .digest("hex"),
    ).toBe(created.body.sha256);
    expect(read.headers.get("etag")).toBe('"1"');
    const updated = await put(p, "slot1", { data: { level: 4 } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, meta: { label: "Chapter 3" } });
    expect((await api("DELETE", "/api/v1/saves/slot1", as(p))).status).toBe(204);
    expectError(await api("GET", "/api/v1/saves/slot1", as(p)), 404, "SAVE_NOT_FOUND");
    expectError(await api("DELETE", "/api/v1/saves/slot1", as(p)), 404, "SAVE_NOT_FOUND");
  });

  it("lists metadata without data, most recently written first (not alphabetical, not by creation)", async () => {
    const p = await anonymousPlayer(project.clientKey);
    for (const key of ["m", "z", "a", "q"]) expect((await put(p, key, { data: key })).status).toBe(201);
    expect((await put(p, "z", { data: "again" })).status).toBe(200);
    const list = await api<Meta[]>("GET", "/api/v1/saves", as(p));
    expect(list.body.map((s) => s.key)).toEqual(["z", "q", "a", "m"]);
    expect(list.body.every((s) => !("data" in s))).toBe(true);
  });

  it("saves belong to the caller: another player sees none of them", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const q = await anonymousPlayer(project.clientKey);
    expect((await put(p, "mine", { data: "secret" })).status).toBe(201);
    expect((await api<Meta[]>("GET", "/api/v1/saves", as(q))).body).toEqual([]);
    expectError(await api("GET", "/api/v1/saves/mine", as(q)), 404, "SAVE_NOT_FOUND");
    expectError(await api("DELETE", "/api/v1/saves/mine", as(q)), 404, "SAVE_NOT_FOUND");
    const server = await api<Save>("GET", "/api/v1/saves/mine", { key: project.serverKey, headers: { "X-Player-Id": p.playerId } });
    expect(server.body.data).toBe("secret");
  });

  it("a 412 carries the server copy's metadata (keep cloud / keep local)", async () => {
    const p = await anonymousPlayer(project.clientKey);
    expect((await put(p, "s", { data: 1, meta: { device: "pc" } })).status).toBe(201);
    expect((await put(p, "s", { data: 2 })).status).toBe(200);
    const stale = await api<{ error: { details: { conflicts: unknown[]; current: Meta } } }>("PUT", "/api/v1/saves/s", {
      ...as(p),
      body: { data: 3 },
      headers: { "If-Match": '"1"' },
    });
    expectError(stale, 412, "VERSION_CONFLICT");
    expect(stale.body.error.details.conflicts).toEqual([{ key: "s", expectedVersion: 1, currentVersion: 2 }]);
    expect(stale.body.error.details.current).toMatchObject({ key: "s", version: 2, meta: { device: "pc" } });
    // All of it, as the save's own metadata reads (sizes, hash, timestamps to the millisecond).
    const { data: _data, ...cloud } = (await api<Save>("GET", "/api/v1/saves/s", as(p))).body;
    expect(stale.body.error.details.current).toEqual(cloud);
    const createOnly = await put(p, "s", { data: 4 }, { "If-None-Match": "*" });
    expectError(createOnly, 412, "VERSION_CONFLICT");
    expect((await api<Save>("GET", "/api/v1/saves/s", as(p))).body).toMatchObject({ version: 2, data: 2, meta: { device: "pc" } });
    expect((await put(p, "s", { data: 5 }, { "If-Match": '"2"' })).status).toBe(200);
    expectError(await api("DELETE", "/api/v1/saves/s", { ...as(p), headers: { "If-Match": '"2"' } }), 412, "VERSION_CONFLICT");
    expect((await api<Save>("GET", "/api/v1/saves/s", as(p))).body).toMatchObject({ version: 3, data: 5 });
  });

  it("limits: data 1 MiB (413), meta 2 KiB (400), 50 saves per player (422) even under concurrency", async () => {
    const p = await anonymousPlayer(project.clientKey);
    const MiB = 1024 * 1024;
    expect((await put(p, "max", { data: "x".repeat(MiB - 2) })).status).toBe(201);
    expectError(await put(p, "over", { data: "x".repeat(MiB - 1) }), 413, "PAYLOAD_TOO_LARGE");
    expectError(await api("GET", "/api/v1/saves/over", as(p)), 404, "SAVE_NOT_FOUND");
    const metaAt = { l: "x".repeat(2048 - 8) }; // {"l":"…"} is 8 bytes of syntax
    expect(Buffer.byteLength(JSON.stringify(metaAt))).toBe(2048);
    expect((await put(p, "meta", { data: 1, meta: metaAt })).status).toBe(201);
    expectError(await put(p, "meta2", { data: 1, meta: { l: "x".repeat(2048 - 7) } }), 400, "VALIDATION_ERROR");
    expectError(await api("GET", "/api/v1/saves/meta2", as(p)), 404, "SAVE_NOT_FOUND");
    for (let i = 0; i < 47; i++) expect((await put(p, `s${i}`, { data: i })).status).toBe(201);
    const racers = await Promise.all(Array.from({ length: 4 }, (_, i) => put(p, `race${i}`, { data: i })));
    expect(racers.map((r) => r.status).sort()).toEqual([201, 422, 422, 422]);
    expect(await prisma().playerSave.count({ where: { playerId: p.playerId } })).toBe(50);
    const refused = racers.find((r) => r.status === 422);
    expect(refused?.body).toMatchObject({ error: { code: "LIMIT_EXCEEDED", details: { limit: "savesPerPlayer", max: 50, current: 50 } } });
    expect((await put(p, "s0", { data: "overwrite at the limit" })).status).toBe(200);
  }, 60_000);

  it("rejects malformed keys and bodies, storing nothing", async () => {
    const p = await anonymousPlayer(project.clientKey);
    expectError(await put(p, "bad%2Fkey", { data: 1 }), 400, "VALIDATION_ERROR");
    expectError(await put(p, "k", { meta: {} }), 400, "VALIDATION_ERROR");
    expectError(await put(p, "k", { data: 1, meta: "label" }), 400, "VALIDATION_ERROR");
    expectError(await put(p, "k", { data: 1, extra: true }), 400, "VALIDATION_ERROR");
    expectError(await put(p, "k", { data: 1, meta: { l: "\u0000" } }), 400, "VALIDATION_ERROR");
    expect((await api<Meta[]>("GET", "/api/v1/saves", as(p))).body).toEqual([]);
  });
});

describe("save keys", () => {
  const PROTOTYPE_NAMES = ["constructor", "toString", "valueOf", "hasOwnProperty", "__defineGetter__", "isPrototypeOf"];

  it.each(PROTOTYPE_NAMES)(
    "%s works through PUT (create, conditional update), GET, the list and DELETE, read back each time",
    async (key) => {
      const p = await anonymousPlayer(project.clientKey);
      expect((await put(p, key, { data: { n: 1 }, meta: { label: key } }, { "If-None-Match": "*" })).status).toBe(201);
      expect((await api<Save>("GET", `/api/v1/saves/${key}`, as(p))).body).toMatchObject({ key, version: 1, data: { n: 1 } });
      expect((await put(p, key, { data: { n: 2 } }, { "If-Match": '"1"' })).status).toBe(200);
      expect((await api<Save>("GET", `/api/v1/saves/${key}`, as(p))).body).toMatchObject({
        key,
        version: 2,
        data: { n: 2 },
        meta: { label: key },
      });
      expect((await api<Meta[]>("GET", "/api/v1/saves", as(p))).body.map((s) => [s.key, s.version])).toEqual([[key, 2]]);
      expect((await api("DELETE", `/api/v1/saves/${key}`, { ...as(p), headers: { "If-Match": '"2"' } })).status).toBe(204);
      expectError(await api("GET", `/api/v1/saves/${key}`, as(p)), 404, "SAVE_NOT_FOUND");
      expect((await api<Meta[]>("GET", "/api/v1/saves", as(p))).body).toEqual([]);
    },
  );

  it("refuses `__proto__` (400) through PUT, GET and DELETE, also percent-encoded, storing nothing", async () => {
    const p = await anonymousPlayer(project.clientKey);
    for (const key of ["__proto__", "%5F%5Fproto%5F%5F"]) {
      expectError(await api("PUT", `/api/v1/saves/${key}`, { ...as(p), body: { data: 1 } }), 400, "VALIDATION_ERROR");
      expectError(await api("GET", `/api/v1/saves/${key}`, as(p)), 400, "VALIDATION_ERROR");
      expectError(await api("DELETE", `/api/v1/saves/${key}`, as(p)), 400, "VALIDATION_ERROR");
    }
    expect(await prisma().playerSave.count({ where: { playerId: p.playerId } })).toBe(0);
  });

  it("`%2E` and `%2E%2E` sent raw are dot segments: they never address a save, so nothing is written or deleted", async () => {
    const p = await anonymousPlayer(project.clientKey);
    expect((await put(p, "keep", { data: 1 })).status).toBe(201);
    for (const key of ["%2E", "%2e%2E"]) {
      expect((await apiRawPath("PUT", `/api/v1/saves/${key}`, { ...as(p), body: { data: 2 } })).status).toBeGreaterThanOrEqual(400);
      expect((await apiRawPath("DELETE", `/api/v1/saves/${key}`, as(p))).status).toBeGreaterThanOrEqual(400);
    }
    expect((await api<Meta[]>("GET", "/api/v1/saves", as(p))).body.map((s) => [s.key, s.version])).toEqual([["keep", 1]]);
  });
});
