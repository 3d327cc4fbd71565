import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DEMO_ECONOMY, DEMO_STORE_PRODUCTS, type DemoFile } from "@/server/demo-seed";
import { createDatabase, type StartedApp, startApp } from "../support/global-setup";
import { operatorSignIn } from "../support/operator-sign-in";

/**
 * The demo is seeded once per database, whatever data directory an instance starts with: two
 * instances, two fresh data directories, one database (the README's multi-instance setup).
 */
describe("demo seed with two instances on one database", () => {
  let db: Awaited<ReturnType<typeof createDatabase>>;
  const dirs = [mkdtempSync(path.join(tmpdir(), "gb-seed-a-")), mkdtempSync(path.join(tmpdir(), "gb-seed-b-"))];
  const apps: StartedApp[] = [];
  let demo: DemoFile;
  let hashBefore: string;

  const query = async <T extends pg.QueryResultRow>(sql: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end();
    }
  };
  const operatorHash = async () =>
    (await query<{ password_hash: string }>(`SELECT password_hash FROM operators WHERE email = 'admin@demo.local'`))[0]?.password_hash;
  const start = (dataDir: string) =>
    startApp({ DATABASE_URL: db.url, JWT_SECRET: inject("jwtSecret"), DATA_DIR: dataDir, SEED_DEMO: "true" });

  beforeAll(async () => {
    db = await createDatabase();
    apps.push(await start(dirs[0] ?? ""));
    demo = JSON.parse(readFileSync(path.join(dirs[0] ?? "", "demo.json"), "utf8")) as DemoFile;
    hashBefore = (await operatorHash()) ?? "";
    apps.push(await start(dirs[1] ?? ""));
  });
  afterAll(async () => {
    for (const app of apps) await app.stop();
    await db?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("6: a second instance with a fresh data directory leaves the demo operator's password hash unchanged", async () => {
    expect(hashBefore).toMatch(/^\$argon2/);
    expect(await operatorHash()).toBe(hashBefore);
  });

  it("6: a second instance with a fresh data directory seeds no second Demo Game or Free Demo", async () => {
    const rows = await query<{ name: string; n: number }>(
      `SELECT name, count(*)::int AS n FROM projects WHERE name IN ('Demo Game', 'Free Demo') GROUP BY name ORDER BY name`,
    );
    expect(rows).toEqual([
      { name: "Demo Game", n: 1 },
      { name: "Free Demo", n: 1 },
    ]);
  });

  it("6: the second instance writes no demo.json and says where the credentials are instead", () => {
    expect(existsSync(path.join(dirs[1] ?? "", "demo.json"))).toBe(false);
    const output = apps[1]?.output() ?? "";
    expect(output).toContain("Demo already seeded in this database");
    expect(output).toContain("data directory of the instance that seeded it");
    expect(output).not.toContain(demo.operatorPassword);
    expect(output).not.toContain(demo.apiKey);
  });

  it("6: the first instance's demo.json password still signs in, on either instance", async () => {
    for (const app of apps) {
      const answer = await operatorSignIn(app.baseUrl, { email: demo.operatorEmail, password: demo.operatorPassword });
      expect(answer.session).not.toBeNull();
    }
  });

  it("the demo game's economy is DEMO_ECONOMY: a new player holds its currencies at their initial balances and buys a potion at its price", async () => {
    const base = apps[0]?.baseUrl ?? "";
    const signIn = await fetch(`${base}/api/v1/auth/anonymous`, { method: "POST", headers: { "X-API-Key": demo.apiKey } });
    const { accessToken } = (await signIn.json()) as { accessToken: string };
    const headers = { "X-API-Key": demo.apiKey, Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json" };
    const wallet = (await (await fetch(`${base}/api/v1/economy/currencies`, { headers })).json()) as unknown[];
    const currencies = Object.values(DEMO_ECONOMY.currencies);
    expect(wallet).toHaveLength(currencies.length);
    expect(wallet).toEqual(expect.arrayContaining(currencies.map((c) => ({ id: c.id, name: c.name, balance: c.initialBalance }))));
    const { coins } = DEMO_ECONOMY.currencies;
    const { buyPotion } = DEMO_ECONOMY.purchases;
    const bought = await fetch(`${base}/api/v1/economy/purchase`, {
      method: "POST",
      headers,
      body: JSON.stringify({ purchaseId: buyPotion.id }),
    });
    expect(bought.status).toBe(200);
    expect(((await bought.json()) as { balances: unknown[] }).balances).toEqual([
      { id: coins.id, balance: coins.initialBalance - buyPotion.costs[0].amount },
    ]);
  });

  it("the demo game's store products are DEMO_STORE_PRODUCTS, as the demo operator's configuration export shows them", async () => {
    const base = apps[0]?.baseUrl ?? "";
    const { session } = await operatorSignIn(base, { email: demo.operatorEmail, password: demo.operatorPassword });
    const query = async <T>(procedure: string, input?: unknown): Promise<T> => {
      const search = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`;
      const res = await fetch(`${base}/api/trpc/${procedure}${search}`, { headers: { Cookie: session ?? "" } });
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as { result: { data: T } }).result.data;
    };
    const projects = await query<Array<{ id: string; name: string }>>("projects.list");
    const game = projects.find((p) => p.name === "Demo Game");
    const exported = await query<{ storeProducts: unknown[] }>("config.export", { projectId: game?.id });
    expect(exported.storeProducts).toEqual(Object.values(DEMO_STORE_PRODUCTS));
  });
});
