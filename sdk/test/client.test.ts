import { GameApiError, memoryStorage, type SaveConflictError, SessionEndedError, VersionConflictError } from "@game-backend/client";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestProject } from "@/e2e/support/fixtures";
import { expiredAccessToken, sessionIdOf } from "@/e2e/support/tokens";
import { asyncStorage, baseUrl, client, gameProject, recordingFetch, slowFetch } from "./support";

/**
 * The SDK against the real server (the suite's app, its Postgres and Redis): what it adds over
 * raw HTTP — sessions, refresh, retries with idempotency keys, versions, typed errors.
 */
let project: TestProject;
beforeAll(async () => {
  project = await gameProject();
});

describe("operations", () => {
  it("every operation of the served OpenAPI document is called by some SDK method", async () => {
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { fetch, storage: memoryStorage() });
    const other = client(project.clientKey, { storage: memoryStorage() });
    const otherSession = await other.auth.anonymous();
    await other.data.set("card", { title: "hi" }, { visibility: "public" });

    const email = `sdk-${Date.now()}@example.com`;
    await game.auth.anonymous();
    await game.auth.register({ email, password: "a long and unusual passphrase", displayName: "Sdk" });
    await game.auth.logout();
    const { playerId } = await game.auth.login({ email, password: "a long and unusual passphrase" });
    await expect(game.auth.idp({ provider: "nobody", token: "x.y.z" })).rejects.toMatchObject({ code: "UNKNOWN_PROVIDER", status: 400 });
    await game.auth.resendVerification();
    await expect(game.auth.verifyEmail("000000")).rejects.toMatchObject({ code: "INVALID_CODE", status: 401 });
    await game.auth.requestPasswordReset(email);
    await expect(game.auth.confirmPasswordReset({ email, code: "000000", password: "another unusual passphrase" })).rejects.toMatchObject({
      code: "INVALID_CODE",
      status: 401,
    });
    await game.auth.refresh();
    expect((await game.players.me()).playerId).toBe(playerId);
    expect((await game.players.update({ displayName: "Renamed" })).displayName).toBe("Renamed");
    expect((await game.players.get(otherSession.playerId)).playerId).toBe(otherSession.playerId);
    expect((await game.data.set("settings", { sound: false })).version).toBe(1);
    expect((await game.data.get("settings")).value).toEqual({ sound: false });
    expect((await game.data.get("card", { playerId: otherSession.playerId })).value).toEqual({ title: "hi" });
    expect((await game.data.list()).map((r) => r.key)).toEqual(["settings"]);
    expect((await game.data.batch({ set: { a: { value: 1 } }, delete: ["settings"] })).map((r) => r.key)).toEqual(["a"]);
    await game.data.delete("a");
    expect((await game.saves.put("slot-1", { level: 2 }, { meta: { label: "Forest" } })).version).toBe(1);
    expect((await game.saves.get("slot-1")).data).toEqual({ level: 2 });
    expect((await game.saves.list()).map((s) => s.key)).toEqual(["slot-1"]);
    await game.saves.delete("slot-1");
    expect((await game.leaderboards.submit("high", 42, { metadata: { level: 2 } })).score).toBe(42);
    expect((await game.leaderboards.page("high", { offset: 0, limit: 10 })).entries[0]?.playerId).toBe(playerId);
    expect((await game.leaderboards.me("high", { range: 2 })).rank).toBe(1);
    expect(await game.economy.currencies()).toEqual([{ id: "coins", name: "Coins", balance: 100 }]);
    expect((await game.economy.add("coins", 5)).balance).toBe(105);
    expect((await game.economy.subtract("coins", 3)).balance).toBe(102);
    expect((await game.economy.purchase("buy-potion", { quantity: 2 })).balances).toEqual([{ id: "coins", balance: 82 }]);
    expect(await game.economy.inventory()).toMatchObject([{ itemId: "potion", quantity: 2 }]);
    expect((await game.economy.transactions({ limit: 10 })).transactions.map((t) => t.kind)).toContain("purchase");
    // This project sells nothing in a store: the calls reach the server and are refused.
    await expect(game.economy.validateReceipt({ store: "steam", orderId: "1" })).rejects.toMatchObject({ status: 422 });
    await expect(game.economy.startSteamOrder({ productId: "gems-500", steamId: "76561197960287930" })).rejects.toMatchObject({
      code: "RECEIPT_WRONG_PRODUCT",
      status: 422,
    });
    expect((await game.players.exportData()).profile).toMatchObject({ playerId, email });
    expect((await game.players.report(otherSession.playerId, { reason: "spam" })).status).toBe("open");
    expect((await game.config.get()).stale).toBe(false);
    await game.players.deleteAccount("a long and unusual passphrase");

    const doc = (await (await globalThis.fetch(`${baseUrl()}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops)
        .filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))
        .map((m) => `${m.toUpperCase()} ${path}`),
    );
    const called = new Set(log.map((e) => `${e.method} ${templateOf(Object.keys(doc.paths), e.path.replace(/^\/api\/v1/, ""))}`));
    expect(operations.filter((op) => !called.has(op))).toEqual([]);
    // Some fifty calls, the first of each route on a fresh app: 25 s alone, past 30 s beside the C# suite.
  }, 120_000);

  it("a player's own profile reports the e-mail it registered with the same playerId as the anonymous account", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    const anonymous = await game.auth.anonymous();
    const upgraded = await game.auth.register({ email: `up-${Date.now()}@example.com`, password: "a long and unusual passphrase" });
    expect(upgraded.playerId).toBe(anonymous.playerId);
    expect((await game.players.me()).hasEmail).toBe(true);
  });
});

describe("account", () => {
  it("exportData returns everything of the signed-in player: its data keys, saves and profile", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    const { playerId } = await game.auth.anonymous();
    await game.data.set("secret-ish", { level: 3 });
    await game.saves.put("slot-9", { map: "forest" });
    const exported = await game.players.exportData();
    expect(exported.profile.playerId).toBe(playerId);
    expect(exported.data.map((d) => [d.key, d.value])).toEqual([["secret-ish", { level: 3 }]]);
    expect(exported.saves.map((x) => [x.key, x.data])).toEqual([["slot-9", { map: "forest" }]]);
  });

  it("deleteAccount of an anonymous player needs no password and forgets the session here", async () => {
    const storage = memoryStorage();
    const game = client(project.clientKey, { storage });
    await game.auth.anonymous();
    await game.players.deleteAccount();
    expect(game.session).toBeNull();
    expect(await storage.getItem("game-backend.session")).toBeNull();
    await expect(game.players.me()).rejects.toMatchObject({ code: "MISSING_TOKEN" });
  });

  it("deleteAccount with a wrong password rejects with INVALID_CREDENTIALS and keeps the account and the session", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    await game.auth.register({ email: `del-${Date.now()}@example.com`, password: "a long and unusual passphrase" });
    await expect(game.players.deleteAccount("not the passphrase")).rejects.toMatchObject({ code: "INVALID_CREDENTIALS", status: 401 });
    expect((await game.players.me()).hasEmail).toBe(true);
  });
});

describe("errors", () => {
  it("a non-2xx answer rejects with GameApiError carrying status, the contract's code, details and the request id", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    await game.auth.anonymous();
    const error = await game.economy.subtract("coins", 1_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GameApiError);
    expect(error).toMatchObject({
      status: 409,
      code: "INSUFFICIENT_FUNDS",
      details: { currencyId: "coins", balance: 100, requested: 1_000 },
    });
    expect((error as GameApiError).requestId).toMatch(/.+/);
  });

  it("a call that needs a player before any sign-in rejects with MISSING_TOKEN without a request", async () => {
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { fetch, storage: memoryStorage() });
    await expect(game.players.me()).rejects.toMatchObject({ code: "MISSING_TOKEN", status: 401 });
    expect(log).toEqual([]);
  });

  it("an unreachable server rejects with NETWORK_ERROR once the retries are spent", async () => {
    const game = client(project.clientKey, {
      baseUrl: "http://127.0.0.1:9",
      storage: memoryStorage(),
      retry: { retries: 2, baseDelayMs: 1 },
    });
    await expect(game.leaderboards.page("high")).rejects.toMatchObject({ code: "NETWORK_ERROR", status: 0 });
  });
});

describe("sessions", () => {
  it("a session is persisted to storage and restored by a new client on the same storage", async () => {
    const storage = memoryStorage();
    const first = client(project.clientKey, { storage });
    const session = await first.auth.anonymous();
    const second = client(project.clientKey, { storage });
    await second.ready;
    expect(second.session?.playerId).toBe(session.playerId);
    expect((await second.players.me()).playerId).toBe(session.playerId);
  });

  it("asynchronous storage (AsyncStorage's shape) is restored once `ready` resolves", async () => {
    const storage = asyncStorage();
    const session = await client(project.clientKey, { storage }).auth.anonymous();
    const restored = client(project.clientKey, { storage });
    expect(restored.session).toBeNull();
    await restored.ready;
    expect(restored.session?.playerId).toBe(session.playerId);
  });

  it("20 parallel calls with an expired access token share one refresh and all succeed", async () => {
    const storage = memoryStorage();
    const session = await client(project.clientKey, { storage }).auth.anonymous();
    await storage.setItem("game-backend.session", JSON.stringify({ ...session, expiresAt: Date.now() - 1_000 }));
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { fetch, storage });
    const answers = await Promise.all(Array.from({ length: 20 }, () => game.players.me()));
    expect(answers.every((a) => a.playerId === session.playerId)).toBe(true);
    expect(log.filter((e) => e.path === "/api/v1/auth/refresh")).toHaveLength(1);
    expect(game.session?.refreshToken).not.toBe(session.refreshToken);
  });

  it("an access token the server calls expired mid-session is refreshed once and the call retried", async () => {
    const storage = memoryStorage();
    const session = await client(project.clientKey, { storage }).auth.anonymous();
    const expired = await expiredAccessToken({
      playerId: session.playerId,
      projectId: project.projectId,
      sessionId: sessionIdOf(session.accessToken),
    });
    // The client believes its token is good for ten more minutes; only the server knows better.
    await storage.setItem("game-backend.session", JSON.stringify({ ...session, accessToken: expired, expiresAt: Date.now() + 600_000 }));
    const { fetch, log } = recordingFetch();
    const game = client(project.clientKey, { fetch, storage });
    expect((await game.economy.currencies())[0]?.balance).toBe(100);
    expect(log.map((e) => `${e.status} ${e.path}`)).toEqual([
      "401 /api/v1/economy/currencies",
      "200 /api/v1/auth/refresh",
      "200 /api/v1/economy/currencies",
    ]);
    expect(JSON.parse((await storage.getItem("game-backend.session")) ?? "{}").accessToken).toBe(game.session?.accessToken);
  });

  it("a session revoked elsewhere rejects with SessionEndedError, clears storage and tells the listeners", async () => {
    const storage = memoryStorage();
    const twinStorage = memoryStorage();
    const session = await client(project.clientKey, { storage }).auth.anonymous();
    await twinStorage.setItem("game-backend.session", JSON.stringify(session));
    // Without the device secret, which would sign this anonymous player in again.
    const game = client(project.clientKey, { storage, deviceSecret: false });
    const changes: unknown[] = [];
    game.onSessionChange((s) => changes.push(s));
    // The same session signed out from another device.
    await client(project.clientKey, { storage: twinStorage }).auth.logout();

    const error = await game.players.me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionEndedError);
    expect(game.session).toBeNull();
    expect(await storage.getItem("game-backend.session")).toBeNull();
    expect(changes).toEqual([null]);
  });

  it("logout of a session already ended elsewhere resolves and forgets it", async () => {
    const storage = memoryStorage();
    const twinStorage = memoryStorage();
    const session = await client(project.clientKey, { storage }).auth.anonymous();
    await twinStorage.setItem("game-backend.session", JSON.stringify(session));
    await client(project.clientKey, { storage: twinStorage }).auth.logout();
    const game = client(project.clientKey, { storage });
    await expect(game.auth.logout()).resolves.toBeUndefined();
    expect(game.session).toBeNull();
    expect(await storage.getItem("game-backend.session")).toBeNull();
  });
});

describe("races", () => {
  const expiredSession = async (storage: ReturnType<typeof memoryStorage>) => {
    const session = await client(project.clientKey, { storage }).auth.anonymous();
    await storage.setItem("game-backend.session", JSON.stringify({ ...session, expiresAt: Date.now() - 1_000 }));
    return session;
  };

  it("a call waiting on a refresh while another player signs in is not sent as that player", async () => {
    const storage = memoryStorage();
    const a = await expiredSession(storage);
    const email = `b-${Date.now()}@example.com`;
    await client(project.clientKey, { storage: memoryStorage() }).auth.register({ email, password: "a long and unusual passphrase" });
    const game = client(project.clientKey, { storage, fetch: slowFetch("/auth/refresh", 500) });
    const purchase = game.economy.purchase("buy-potion").catch((e: unknown) => e);
    const b = await game.auth.login({ email, password: "a long and unusual passphrase" });

    const error = await purchase;
    expect(error).toBeInstanceOf(SessionEndedError);
    expect((error as SessionEndedError).details).toEqual({ reason: "player-changed" });
    expect(game.session?.playerId).toBe(b.playerId);
    expect(await game.economy.currencies()).toEqual([{ id: "coins", name: "Coins", balance: 100 }]);
    expect(a.playerId).not.toBe(b.playerId);
  });

  it("one caller aborting a shared refresh rejects only that caller with ABORTED; the others and the session go on", async () => {
    const storage = memoryStorage();
    const session = await expiredSession(storage);
    const game = client(project.clientKey, { storage, fetch: slowFetch("/auth/refresh", 300) });
    const controller = new AbortController();
    const first = game.players.me({ signal: controller.signal }).catch((e: unknown) => e);
    const second = game.players.me();
    controller.abort();

    expect(await first).toMatchObject({ code: "ABORTED", status: 0 });
    expect((await second).playerId).toBe(session.playerId);
    const stored = JSON.parse((await storage.getItem("game-backend.session")) ?? "{}");
    expect(stored.refreshToken).not.toBe(session.refreshToken);
    expect(stored.refreshToken).toBe(game.session?.refreshToken);
  });

  it("a refresh refused for a bad API key keeps the session (only INVALID_TOKEN ends it)", async () => {
    const storage = memoryStorage();
    const session = await expiredSession(storage);
    const game = client("gb_client_not-a-real-key", { storage });
    await expect(game.players.me()).rejects.toMatchObject({ status: 401, code: "INVALID_API_KEY" });
    expect(game.session?.refreshToken).toBe(session.refreshToken);
    expect(JSON.parse((await storage.getItem("game-backend.session")) ?? "{}").refreshToken).toBe(session.refreshToken);
  });

  it("logout called before an asynchronous storage has restored the session still ends it on the server", async () => {
    const storage = asyncStorage();
    const session = await client(project.clientKey, { storage }).auth.anonymous();
    const game = client(project.clientKey, { storage });
    await game.auth.logout();
    expect(game.session).toBeNull();
    const twin = memoryStorage();
    await twin.setItem("game-backend.session", JSON.stringify({ ...session, expiresAt: Date.now() - 1_000 }));
    await expect(client(project.clientKey, { storage: twin }).players.me()).rejects.toBeInstanceOf(SessionEndedError);
  });

  it("a 2xx answer that is not JSON (a captive portal's page) rejects with UNEXPECTED_RESPONSE", async () => {
    const portal: typeof fetch = async () =>
      new Response("<html>Sign in to the Wi-Fi</html>", { status: 200, headers: { "Content-Type": "text/html" } });
    const game = client(project.clientKey, { storage: memoryStorage(), fetch: portal });
    await expect(game.leaderboards.page("high")).rejects.toMatchObject({ code: "UNEXPECTED_RESPONSE", status: 200 });
  });
});

describe("versions", () => {
  it("a save written with a stale version rejects with VersionConflictError carrying the cloud copy, and keep-local overwrites it", async () => {
    const storage = memoryStorage();
    const game = client(project.clientKey, { storage });
    await game.auth.anonymous();
    const first = await game.saves.put("slot", { level: 1 }, { meta: { label: "one" } });
    await client(project.clientKey, { storage }).saves.put("slot", { level: 5 }, { ifVersion: first.version });

    const error = await game.saves.put("slot", { level: 2 }, { ifVersion: first.version }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionConflictError);
    const conflict = error as SaveConflictError;
    expect(conflict).toMatchObject({ status: 412, code: "VERSION_CONFLICT" });
    expect(conflict.current).toMatchObject({ version: 2, data: { level: 5 } });
    const kept = await game.saves.put("slot", { level: 2 }, { ifVersion: conflict.current?.version });
    expect(kept.version).toBe(3);
    expect((await game.saves.get("slot")).data).toEqual({ level: 2 });
  });

  it("a delete with a stale version rejects with VersionConflictError carrying the stored record, and deletes nothing", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    await game.auth.anonymous();
    await game.data.set("name", "first");
    await game.data.set("name", "second");
    const error = await game.data.delete("name", { ifVersion: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionConflictError);
    expect((error as VersionConflictError).current).toMatchObject({ key: "name", value: "second", version: 2 });
    expect((await game.data.get("name")).version).toBe(2);
  });

  it("a data key created with createOnly when it exists rejects with VersionConflictError carrying the stored record", async () => {
    const game = client(project.clientKey, { storage: memoryStorage() });
    await game.auth.anonymous();
    await game.data.set("name", "first");
    const error = await game.data.set("name", "second", { createOnly: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VersionConflictError);
    expect((error as VersionConflictError).current).toMatchObject({ key: "name", value: "first", version: 1 });
  });
});

describe("client identification", () => {
  it("clientVersion and platform are sent as X-Client-Version and X-Platform on every request, sign-in included", async () => {
    const seen: Array<[string | null, string | null]> = [];
    const watching: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      seen.push([headers.get("x-client-version"), headers.get("x-platform")]);
      return fetch(input, init);
    };
    const game = client(project.clientKey, { storage: memoryStorage(), fetch: watching, clientVersion: "1.4.2", platform: "web" });
    await game.auth.anonymous();
    await game.players.me();
    expect(seen).toEqual([
      ["1.4.2", "web"],
      ["1.4.2", "web"],
    ]);
  });
});

function templateOf(templates: string[], path: string): string {
  const matches = templates.filter((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path));
  return matches.sort((a, b) => b.replace(/\{[^}]+\}/g, "").length - a.replace(/\{[^}]+\}/g, "").length)[0] ?? path;
}
