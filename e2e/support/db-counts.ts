import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import { createCurrency, createItem, createPurchase } from "@/server/services/economy/definitions";
import { createLeaderboard } from "@/server/services/leaderboards/definitions";
import { parseCounts, type StatementCounts } from "@/server/statement-counts";
import { type ApiOptions, type ApiResponse, api as request } from "./api";
import { dedicatedApp } from "./dedicated-app";
import { makeProject, type TestPlayer, type TestProject } from "./fixtures";

/**
 * What one /api/v1 request asks of Postgres and Redis, read from the X-Debug-Db header the suite's
 * app sends (STATEMENT_COUNTS=1, server/statement-counts.ts). Used by the budgets
 * (e2e/api/statement-budgets.test.ts) and the table (e2e/api/db-counts.test.ts).
 */
export type { StatementCounts };

export function countsOf(res: ApiResponse): StatementCounts {
  const counts = parseCounts(res.headers.get("x-debug-db"));
  if (!counts) throw new Error(`no X-Debug-Db header on a ${res.status} answer: is the app running with STATEMENT_COUNTS=1?`);
  return counts;
}

/** A project with what the hot routes need: a board, a currency, an item and a purchase. */
export type CountWorld = { base: string; project: TestProject; board: string; player: TestPlayer; other: TestPlayer };

/**
 * The app the counts are read from: the suite's database, its own process with the caches' longest
 * lifetimes (session 30 s, definitions 60 s, keys 300 s), so that "warm" holds however slow the
 * machine is (the suite's app keeps them 200–250 ms for other files' tests). Call in a describe
 * block or at file level; returns a getter of its base URL.
 */
export function countingApp(): () => string {
  const app = dedicatedApp({
    STATEMENT_COUNTS: "1",
    REDIS_URL: inject("redisUrl") || undefined,
    TRUST_PROXY: "true",
    RATE_LIMIT_WINDOW_SECONDS: String(inject("rateLimitWindowSeconds")),
    RATE_LIMIT_STORE_TIMEOUT_MS: "1000",
    SESSION_CACHE_TTL_SECONDS: "30",
    DEFINITION_CACHE_TTL_MS: "60000",
    API_KEY_CACHE_TTL_SECONDS: "300",
  });
  return () => app().baseUrl;
}

/** An anonymous player signed in on `base`. */
async function signIn(base: string, key: string): Promise<TestPlayer> {
  const res = await request<TestPlayer>("POST", "/api/v1/auth/anonymous", { key, base });
  if (res.status !== 200) throw new Error(`anonymous sign-in failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function countWorld(base: string): Promise<CountWorld> {
  const project = await makeProject();
  const projectId = project.projectId;
  await createCurrency({ projectId, input: { id: "coins", name: "Coins", initialBalance: 1_000_000, maxBalance: 1_000_000_000 } });
  await createItem({ projectId, input: { id: "potion", name: "Potion" } });
  await createPurchase({
    projectId,
    input: { id: "buy-potion", name: "Potion", costs: [{ currencyId: "coins", amount: 1 }], rewards: [{ itemId: "potion", quantity: 1 }] },
  });
  const board = `b-${randomBytes(4).toString("hex")}`;
  await createLeaderboard({ projectId, input: { id: board, name: board, sortOrder: "desc", operator: "best" } });
  const player = await signIn(base, project.clientKey);
  // What the reads read (and the writes then replace: 200, not 201).
  const as: ApiOptions = { key: project.clientKey, token: player.accessToken, base };
  for (const [path, body] of [
    ["/api/v1/players/me/data/hot", { value: { level: 1 } }],
    ["/api/v1/saves/slot1", { data: { level: 1 } }],
  ] as const) {
    const res = await request("PUT", path, { ...as, body });
    if (res.status !== 201) throw new Error(`PUT ${path}: ${res.status} ${res.text}`);
  }
  return { base, project, board, player, other: await signIn(base, project.clientKey) };
}

/**
 * One operation of the OpenAPI document as a repeatable call: `call()` makes the request measured
 * (after unmeasured preparation when a call consumes something, such as a refresh token or the
 * record a DELETE removes). `status` is the answer expected.
 */
export type Measured = { method: string; path: string; status: number; call: () => Promise<ApiResponse> };
export type NotMeasured = { method: string; path: string; reason: string };

export function operations(w: CountWorld): Array<Measured | NotMeasured> {
  const { base, project, board, player, other } = w;
  const as = (p: TestPlayer = player): ApiOptions => ({ key: project.clientKey, token: p.accessToken, base });
  const api = <T = Record<string, unknown>>(method: string, path: string, o: ApiOptions = {}) => request<T>(method, path, { ...o, base });
  const anonymousPlayer = (key: string) => signIn(base, key);
  let session = player;
  let n = 0;
  const next = () => {
    n += 1;
    return `k${n}`;
  };
  return [
    { method: "POST", path: "/auth/anonymous", status: 200, call: () => api("POST", "/api/v1/auth/anonymous", { key: project.clientKey }) },
    { method: "POST", path: "/auth/email/register", reason: "email sign-in set up per project and a mail sink" },
    { method: "POST", path: "/auth/email/login", reason: "email sign-in set up per project" },
    { method: "POST", path: "/auth/email/password-reset", reason: "email sign-in set up per project and a mail sink" },
    { method: "POST", path: "/auth/email/password-reset/confirm", reason: "a code from the reset mail" },
    { method: "POST", path: "/auth/email/verify", reason: "a code from the verification mail" },
    { method: "POST", path: "/auth/email/verify/resend", reason: "an email account and a mail sink" },
    { method: "POST", path: "/auth/idp", reason: "an identity provider and its signed tokens" },
    {
      method: "POST",
      path: "/auth/refresh",
      status: 200,
      call: async () => {
        // Its own session: refreshing rotates the tokens.
        const res = await api<TestPlayer>("POST", "/api/v1/auth/refresh", {
          key: project.clientKey,
          body: { refreshToken: session.refreshToken },
        });
        if (res.status === 200) session = { ...session, ...res.body };
        return res;
      },
    },
    {
      method: "POST",
      path: "/auth/logout",
      status: 204,
      call: async () => api("POST", "/api/v1/auth/logout", as(await anonymousPlayer(project.clientKey))),
    },
    { method: "GET", path: "/players/{id}", status: 200, call: () => api("GET", "/api/v1/players/me", as()) },
    {
      method: "PATCH",
      path: "/players/{id}",
      status: 200,
      call: () => api("PATCH", "/api/v1/players/me", { ...as(), body: { displayName: "Ada" } }),
    },
    {
      method: "DELETE",
      path: "/players/{id}",
      status: 204,
      call: async () => api("DELETE", "/api/v1/players/me", as(await anonymousPlayer(project.clientKey))),
    },
    { method: "GET", path: "/players/{id}/export", status: 200, call: () => api("GET", "/api/v1/players/me/export", as()) },
    {
      method: "POST",
      path: "/players/{id}/report",
      status: 202,
      call: async () => {
        const target = await anonymousPlayer(project.clientKey);
        return api("POST", `/api/v1/players/${target.playerId}/report`, { ...as(), body: { reason: "cheating" } });
      },
    },
    { method: "GET", path: "/players/{id}/data", status: 200, call: () => api("GET", "/api/v1/players/me/data", as()) },
    {
      method: "PATCH",
      path: "/players/{id}/data",
      status: 200,
      call: () => api("PATCH", "/api/v1/players/me/data", { ...as(), body: { set: { patched: { value: { n: 1 } } } } }),
    },
    { method: "GET", path: "/players/{id}/data/{key}", status: 200, call: () => api("GET", "/api/v1/players/me/data/hot", as()) },
    {
      method: "PUT",
      path: "/players/{id}/data/{key}",
      status: 200,
      call: () => api("PUT", "/api/v1/players/me/data/hot", { ...as(), body: { value: { level: 3 } } }),
    },
    {
      method: "DELETE",
      path: "/players/{id}/data/{key}",
      status: 204,
      call: async () => {
        const key = next();
        await api("PUT", `/api/v1/players/me/data/${key}`, { ...as(), body: { value: 1 } });
        return api("DELETE", `/api/v1/players/me/data/${key}`, as());
      },
    },
    { method: "GET", path: "/saves", status: 200, call: () => api("GET", "/api/v1/saves", as()) },
    { method: "GET", path: "/saves/{key}", status: 200, call: () => api("GET", "/api/v1/saves/slot1", as()) },
    {
      method: "PUT",
      path: "/saves/{key}",
      status: 200,
      call: () => api("PUT", "/api/v1/saves/slot1", { ...as(), body: { data: { level: 3 } } }),
    },
    {
      method: "DELETE",
      path: "/saves/{key}",
      status: 204,
      call: async () => {
        const key = next();
        await api("PUT", `/api/v1/saves/${key}`, { ...as(), body: { data: 1 } });
        return api("DELETE", `/api/v1/saves/${key}`, as());
      },
    },
    { method: "GET", path: "/leaderboards/{id}", status: 200, call: () => api("GET", `/api/v1/leaderboards/${board}`, as()) },
    {
      method: "POST",
      path: "/leaderboards/{id}/scores",
      status: 200,
      call: () => api("POST", `/api/v1/leaderboards/${board}/scores`, { ...as(), body: { score: 100 } }),
    },
    { method: "GET", path: "/leaderboards/{id}/player", status: 200, call: () => api("GET", `/api/v1/leaderboards/${board}/player`, as()) },
    { method: "GET", path: "/economy/currencies", status: 200, call: () => api("GET", "/api/v1/economy/currencies", as()) },
    {
      method: "POST",
      path: "/economy/currencies/{id}/add",
      status: 200,
      call: () => api("POST", "/api/v1/economy/currencies/coins/add", { ...as(), body: { amount: 1 } }),
    },
    {
      method: "POST",
      path: "/economy/currencies/{id}/subtract",
      status: 200,
      call: () => api("POST", "/api/v1/economy/currencies/coins/subtract", { ...as(), body: { amount: 1 } }),
    },
    { method: "GET", path: "/economy/inventory", status: 200, call: () => api("GET", "/api/v1/economy/inventory", as()) },
    {
      method: "POST",
      path: "/economy/purchase",
      status: 200,
      call: () => api("POST", "/api/v1/economy/purchase", { ...as(), body: { purchaseId: "buy-potion" } }),
    },
    { method: "GET", path: "/economy/transactions", status: 200, call: () => api("GET", "/api/v1/economy/transactions", as()) },
    { method: "POST", path: "/economy/receipts", reason: "store products and a signed store receipt" },
    { method: "POST", path: "/economy/receipts/steam", reason: "a Steam app and the fake Steam server" },
    { method: "GET", path: "/config", status: 200, call: () => api("GET", "/api/v1/config", as(other)) },
  ];
}

/**
 * The counts of one warm call: `warm` calls first (caches filled for this project and player),
 * then up to `tries` measured calls, stopping at the first whose counts `accept` (the suite's
 * caches live 200–250 ms, which a busy machine can outlast between two calls). Returns the last
 * counts seen, or the least (by round trips) when no `accept` is given.
 */
export async function warmCounts(
  op: Measured,
  o: { warm?: number; tries?: number; accept?: (c: StatementCounts) => boolean } = {},
): Promise<StatementCounts> {
  for (let i = 0; i < (o.warm ?? 2); i += 1) {
    const res = await op.call();
    if (res.status !== op.status) throw new Error(`${op.method} ${op.path}: warm-up answered ${res.status} ${res.text}`);
  }
  let best: StatementCounts | null = null;
  for (let i = 0; i < (o.tries ?? 3); i += 1) {
    const res = await op.call();
    if (res.status !== op.status) throw new Error(`${op.method} ${op.path}: answered ${res.status} ${res.text}`);
    const counts = countsOf(res);
    if (o.accept?.(counts)) return counts;
    if (o.accept) {
      // Said, so that a budget held only on a second try shows in the log.
      console.warn(`[statement counts] ${op.method} ${op.path}: try ${i + 1} counted ${JSON.stringify(counts)}`);
      best = counts;
    } else if (!best || counts.roundTrips + counts.redis < best.roundTrips + best.redis) best = counts;
  }
  return best as StatementCounts;
}
