import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { inject } from "vitest";
import { makeProject } from "@/e2e/support/fixtures";
import { type StartedApp, startApp } from "@/e2e/support/global-setup";
import { newOperator } from "@/e2e/support/operators";
import { appleReceipt, sellOnAppleAs } from "@/e2e/support/stores";
import { type TcpProxy, tcpProxy } from "@/e2e/support/tcp-proxy";
import { expiredAccessToken, sessionIdOf } from "@/e2e/support/tokens";
import { gameProject } from "@/sdk/test/support";
import { pool, prisma } from "@/server/db";
import { DEMO_LEADERBOARDS, type DemoFile, seedDemoEconomy } from "@/server/demo-seed";
import { revokeSessions } from "@/server/services/auth/sessions";
import { createCurrency, createItem } from "@/server/services/economy/definitions";
import { createLeaderboard } from "@/server/services/leaderboards/definitions";

/**
 * The fixture server: what only the test process can do, over HTTP for the C# suite (NUnit, in
 * another process). Listens on 127.0.0.1; its URL is the C# suite's GB_FIXTURES_URL. JSON in and
 * out; an error is `{ "error": "…" }` with a 4xx/5xx status.
 *
 *   POST /projects  { "customRateLimit"?: number, "shortWindow"?: boolean }
 *     → 200 { "projectId", "clientKey", "serverKey", "baseUrl" }
 *     A project of its own, as sdk/test/support.ts gameProject() makes it: ENTERPRISE with
 *     customRateLimit (default 100000); board "high" (desc, best); currency "coins" (initial 100,
 *     client-writable); item "potion"; purchase "buy-potion" (10 coins → 1 potion).
 *     shortWindow: true → `baseUrl` is a second app on the same database with
 *     RATE_LIMIT_WINDOW_SECONDS=2 and no Redis (in-memory limiter), started on first use: that
 *     first call can take a minute on a busy machine. Otherwise `baseUrl` is GB_BASE_URL.
 *
 *   POST /demo  → 200 { "clientKey", "baseUrl" }
 *     A project shaped like the seeded demo (server/demo-seed.ts): Pro plan; boards
 *     "high-scores", "speedrun", "total-kills" (DEMO_LEADERBOARDS); currencies "coins" (initial
 *     100, client-writable) and "gems" (server only); items "sword", "potion"; purchases
 *     "buy-potion", "drink-potion", "buy-sword". The app under test runs in production on its
 *     own database, where the launcher seeds no demo; seedDemo() would add the demo's instance
 *     admin to the suite's shared database, so the project is made here with the seed's ids (its
 *     demo.json is reused when the app did seed one). One per fixture server, shared by callers.
 *
 *   POST /tokens/expired  { "projectId", "playerId", "accessToken" }  → 200 { "accessToken" }
 *     An access token of the same session (the `sid` of `accessToken`), signed with the app's
 *     secret, that expired 100 s ago.
 *
 *   GET /ledger?projectId=…&playerId=…  → 200 { "kinds": ["PURCHASE", …] }
 *     The kinds of the player's ledger rows (economy_transactions), oldest first.
 *
 *   POST /proxies  → 200 { "port", "baseUrl" }
 *     A TCP proxy on 127.0.0.1 in front of the app (GB_BASE_URL).
 *   POST /proxies/<port>/drop  { "count": n }  → 204
 *     The next n answers through that proxy are dropped: the request reaches the app (which does
 *     the work), the connection is closed as the answer starts.
 *   DELETE /proxies/<port>  → 204   closes it (all proxies are closed at the end anyway).
 *
 *   POST /stores/apple  { "projectId" }  → 204
 *     The project sells on the App Store as e2e/support/stores.ts sellOnAppleAs sets it up (the
 *     test app, production and sandbox), with currency "gems" and item "vip-pass" added first:
 *     store product "gems-500" (Apple "com.example.game.gems500": 500 gems) and "vip".
 *   POST /receipts/apple  { "productId"?: string }  → 200 { "signedTransaction", "transactionId" }
 *     A new StoreKit 2 signed transaction of the test app (default product
 *     "com.example.game.gems500"), signed by the suite's test PKI, which the app trusts.
 *
 *   GET /store-purchases?projectId=…&playerId=…  → 200 { "count": n }
 *     The player's STORE_PURCHASE ledger rows.
 *
 *   POST /sessions/revoke  { "projectId", "playerId" }  → 204
 *     Revokes every session of the player server-side (as a password reset does); answers once
 *     the app's session cache has expired, so the app refuses the tokens from then on.
 *
 *   POST /config/keys  { "projectId", "key", "type": "string"|"number"|"boolean"|"json", "value" }  → 204
 *     A remote config key with that default value (before any player reads the project's config).
 *
 *   GET /reports?projectId=…&reporterId=…&targetId=…  → 200 { "count": n }
 *     How many reports the reporter filed against the target.
 */
/** The client key of a project shaped like the demo: the app's own demo when it seeded one, else a copy made with the seed's ids. */
async function demoProject(): Promise<string> {
  const file = path.join(inject("dataDir"), "demo.json");
  if (existsSync(file)) return (JSON.parse(readFileSync(file, "utf8")) as DemoFile).apiKey;
  const { projectId, clientKey } = await makeProject({ plan: "PRO", name: "Demo Game" });
  for (const input of DEMO_LEADERBOARDS) await createLeaderboard({ projectId, input });
  await seedDemoEconomy(projectId);
  return clientKey;
}

export type FixtureServer = { url: string; close: () => Promise<void>; prewarmShortWindowApp: () => void };

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (!text) return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, `the body is not JSON: ${text.slice(0, 200)}`);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new HttpError(400, "the body must be a JSON object");
  return body as Record<string, unknown>;
}

function requiredString(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== "string" || !value) throw new HttpError(400, `"${name}" (a string) is required`);
  return value;
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const appUrl = inject("baseUrl");
  const proxies = new Map<number, TcpProxy>();
  let shortWindowApp: Promise<StartedApp> | undefined;
  let demo: Promise<string> | undefined;

  const shortWindow = (): Promise<StartedApp> => {
    // As sdk/test/retries.test.ts's dedicatedApp: the suite's database, a 2-second window, no Redis.
    shortWindowApp ??= startApp({
      DATABASE_URL: inject("databaseUrl"),
      JWT_SECRET: inject("jwtSecret"),
      DATA_DIR: inject("dataDir"),
      SEED_DEMO: "false",
      RATE_LIMIT_WINDOW_SECONDS: "2",
      REDIS_URL: undefined,
      UPSTASH_REDIS_REST_URL: undefined,
      TRUST_PROXY: "true",
      DEFINITION_CACHE_TTL_MS: String(inject("definitionCacheTtlMs")),
      SESSION_CACHE_TTL_SECONDS: String(inject("sessionCacheTtlMs") / 1000),
    });
    return shortWindowApp;
  };

  const routes = async (req: IncomingMessage, url: URL): Promise<{ status: number; body?: unknown }> => {
    const route = `${req.method} ${url.pathname}`;
    if (route === "POST /projects") {
      const body = await readJson(req);
      const limit = body.customRateLimit;
      if (limit !== undefined && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1)) {
        throw new HttpError(400, '"customRateLimit" must be a positive integer');
      }
      const project = await gameProject(limit === undefined ? {} : { customRateLimit: limit });
      const baseUrl = body.shortWindow === true ? (await shortWindow()).baseUrl : appUrl;
      return { status: 200, body: { projectId: project.projectId, clientKey: project.clientKey, serverKey: project.serverKey, baseUrl } };
    }
    if (route === "POST /demo") {
      await readJson(req);
      demo ??= demoProject();
      return { status: 200, body: { clientKey: await demo, baseUrl: appUrl } };
    }
    if (route === "POST /tokens/expired") {
      const body = await readJson(req);
      const projectId = requiredString(body, "projectId");
      const playerId = requiredString(body, "playerId");
      const accessToken = requiredString(body, "accessToken");
      let sessionId: string;
      try {
        sessionId = sessionIdOf(accessToken);
      } catch {
        throw new HttpError(400, '"accessToken" is not a JWT with a sid');
      }
      return { status: 200, body: { accessToken: await expiredAccessToken({ projectId, playerId, sessionId }) } };
    }
    if (route === "GET /ledger") {
      const projectId = url.searchParams.get("projectId");
      const playerId = url.searchParams.get("playerId");
      if (!projectId || !playerId) throw new HttpError(400, "projectId and playerId are required query parameters");
      const rows = await prisma().economyTransaction.findMany({
        where: { projectId, playerId },
        select: { kind: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      });
      return { status: 200, body: { kinds: rows.map((r) => r.kind) } };
    }
    if (route === "POST /proxies") {
      await readJson(req);
      const proxy = await tcpProxy(Number(new URL(appUrl).port));
      proxies.set(proxy.port, proxy);
      return { status: 200, body: { port: proxy.port, baseUrl: `http://127.0.0.1:${proxy.port}` } };
    }
    const proxyRoute = /^\/proxies\/(\d+)(\/drop)?$/.exec(url.pathname);
    if (proxyRoute) {
      const proxy = proxies.get(Number(proxyRoute[1]));
      if (!proxy) throw new HttpError(404, `no proxy on port ${proxyRoute[1]}`);
      if (req.method === "POST" && proxyRoute[2]) {
        const count = (await readJson(req)).count ?? 1;
        if (typeof count !== "number" || !Number.isInteger(count) || count < 0)
          throw new HttpError(400, '"count" must be a non-negative integer');
        proxy.dropNextResponses(count);
        return { status: 204 };
      }
      if (req.method === "DELETE" && !proxyRoute[2]) {
        proxies.delete(proxy.port);
        await proxy.cut();
        return { status: 204 };
      }
    }
    if (route === "POST /stores/apple") {
      const projectId = requiredString(await readJson(req), "projectId");
      await createCurrency({ projectId, input: { id: "gems", name: "Gems", clientWritable: false } });
      await createItem({ projectId, input: { id: "vip-pass", name: "VIP pass" } });
      await sellOnAppleAs(projectId, await newOperator("OWNER", projectId));
      return { status: 204 };
    }
    if (route === "POST /receipts/apple") {
      const productId = (await readJson(req)).productId ?? "com.example.game.gems500";
      if (typeof productId !== "string") throw new HttpError(400, '"productId" must be a string');
      const receipt = appleReceipt({ productId });
      return { status: 200, body: { signedTransaction: receipt.body.signedTransaction, transactionId: receipt.transactionId } };
    }
    if (route === "GET /store-purchases") {
      const projectId = url.searchParams.get("projectId");
      const playerId = url.searchParams.get("playerId");
      if (!projectId || !playerId) throw new HttpError(400, "projectId and playerId are required query parameters");
      const count = await prisma().economyTransaction.count({ where: { projectId, playerId, kind: "STORE_PURCHASE" } });
      return { status: 200, body: { count } };
    }
    if (route === "POST /sessions/revoke") {
      const body = await readJson(req);
      await revokeSessions({
        projectId: requiredString(body, "projectId"),
        playerId: requiredString(body, "playerId"),
        reason: "test",
      });
      // The app remembers a session's state for SESSION_CACHE_TTL_SECONDS (shortened for the
      // suite): answer once its entries have expired, as e2e/support/api.ts sessionCachesExpired.
      await new Promise((resolve) => setTimeout(resolve, inject("sessionCacheTtlMs") + 50));
      return { status: 204 };
    }
    if (route === "POST /config/keys") {
      const body = await readJson(req);
      await pool().query("INSERT INTO remote_config_keys (project_id, key, type, default_value) VALUES ($1, $2, $3, $4::jsonb)", [
        requiredString(body, "projectId"),
        requiredString(body, "key"),
        requiredString(body, "type"),
        JSON.stringify(body.value ?? null),
      ]);
      return { status: 204 };
    }
    if (route === "GET /reports") {
      const [projectId, reporterId, targetId] = ["projectId", "reporterId", "targetId"].map((n) => url.searchParams.get(n));
      if (!projectId || !reporterId || !targetId)
        throw new HttpError(400, "projectId, reporterId and targetId are required query parameters");
      const { rows } = await pool().query<{ n: string }>(
        "SELECT count(*) AS n FROM player_reports WHERE project_id = $1 AND reporter_id = $2 AND target_id = $3",
        [projectId, reporterId, targetId],
      );
      return { status: 200, body: { count: Number(rows[0]?.n ?? 0) } };
    }
    throw new HttpError(404, `no fixture ${route}`);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    routes(req, url).then(
      ({ status, body }) => {
        if (body === undefined) res.writeHead(status).end();
        else res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
      },
      (error: unknown) => {
        const status = error instanceof HttpError ? error.status : 500;
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        if (!res.headersSent) res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: message }));
      },
    );
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    prewarmShortWindowApp: () => {
      shortWindow().catch(() => undefined); // a failed start is reported to the caller of POST /projects
    },
    close: async () => {
      await Promise.all([...proxies.values()].map((p) => p.cut()));
      proxies.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (shortWindowApp) await (await shortWindowApp.catch(() => undefined))?.stop();
    },
  };
}
