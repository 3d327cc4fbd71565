import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { hashApiKey } from "./api-keys";
import { pool, prisma } from "./db";
import { env } from "./env";
import { holdMigrationLock } from "./migrate";
import { hashPassword } from "./passwords";
import { createCurrency, createItem, createPurchase } from "./services/economy/definitions";
import type { CurrencyInput, ItemInput, PurchaseInput } from "./services/economy/schemas";
import { createLeaderboard } from "./services/leaderboards/definitions";
import type { CreateLeaderboard } from "./services/leaderboards/schemas";
import { createApiKey, createProject } from "./services/projects";
import { createStoreProduct } from "./services/store/products";
import { type StoreProductInput, ZStoreProductInput } from "./services/store/schemas";

/** The demo game's boards: a classic high score, a speedrun (lower is better), a running total. */
export const DEMO_LEADERBOARDS: CreateLeaderboard[] = [
  { id: "high-scores", name: "High scores", sortOrder: "desc", operator: "best", minScore: 0 },
  { id: "speedrun", name: "Speedrun (ms)", sortOrder: "asc", operator: "best", minScore: 1 },
  { id: "total-kills", name: "Total kills", sortOrder: "desc", operator: "increment", minScore: 0, resetSchedule: "weekly" },
];

/** Exactly these fields, in this order: scripts and the test suite read them. */
export type DemoFile = {
  baseUrl: string;
  apiKey: string;
  serverApiKey: string;
  freeApiKey: string;
  operatorEmail: string;
  operatorPassword: string;
};

export function demoFilePath(): string {
  return path.join(env().DATA_DIR, "demo.json");
}

async function existingDemo(file: string): Promise<DemoFile | null> {
  if (!existsSync(file)) return null;
  try {
    const demo = JSON.parse(readFileSync(file, "utf8")) as DemoFile;
    const key = await prisma().apiKey.findUnique({ where: { keyHash: hashApiKey(demo.apiKey) }, select: { id: true } });
    return key ? demo : null;
  } catch {
    return null;
  }
}

export const DEMO_OPERATOR_EMAIL = "admin@demo.local";

/**
 * created: seeded now, its secrets are in `demo` (and this data directory's demo.json);
 * present: this data directory's demo.json belongs to this database;
 * elsewhere: another instance (another data directory) seeded this database — its secrets are
 * in that instance's demo.json and cannot be known here.
 */
export type SeedResult =
  | { state: "created"; demo: DemoFile }
  | { state: "present"; demo: DemoFile }
  | { state: "elsewhere"; operatorEmail: string };

/**
 * Seeds the demo once per database, under the migration lock (held on a connection of its own,
 * so instances starting together take turns): the demo operator's existence is the mark, so a
 * second instance (or a second data directory) never seeds again and never changes an existing
 * operator's password. The seed's own writes run as the services make them; the file with the
 * secrets is written before the lock is released.
 */
export async function seedDemo(): Promise<SeedResult> {
  const file = demoFilePath();
  const baseUrl = env().PUBLIC_URL ?? `http://localhost:${env().PORT}`;
  const found = await existingDemo(file);
  if (found) {
    const demo = { ...found, baseUrl };
    if (found.baseUrl !== baseUrl) writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
    return { state: "present", demo };
  }
  const lock = await pool().connect();
  try {
    await lock.query("BEGIN");
    await holdMigrationLock(lock);
    const seeded = await prisma().operator.findUnique({ where: { email: DEMO_OPERATOR_EMAIL }, select: { id: true } });
    if (seeded) return { state: "elsewhere", operatorEmail: DEMO_OPERATOR_EMAIL };
    const demo = await seedAll(baseUrl);
    writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
    return { state: "created", demo };
  } finally {
    await lock.query("COMMIT").catch(() => undefined);
    lock.release();
  }
}

async function seedAll(baseUrl: string): Promise<DemoFile> {
  const operatorPassword = randomBytes(12).toString("base64url");
  const operator = await prisma().operator.create({
    data: { email: DEMO_OPERATOR_EMAIL, name: "Demo Admin", passwordHash: await hashPassword(operatorPassword), isInstanceAdmin: true },
    select: { id: true },
  });
  const game = await createProject({ name: "Demo Game", plan: "PRO", ownerId: operator.id });
  const free = await createProject({ name: "Free Demo", plan: "FREE", ownerId: operator.id });
  for (const input of DEMO_LEADERBOARDS) await createLeaderboard({ projectId: game.id, input });
  await seedDemoEconomy(game.id);
  await seedDemoStoreProducts(game.id);
  const apiKey = await createApiKey({ projectId: game.id, kind: "CLIENT", name: "Demo client key" });
  const serverApiKey = await createApiKey({ projectId: game.id, kind: "SERVER", name: "Demo server key" });
  const freeApiKey = await createApiKey({ projectId: free.id, kind: "CLIENT", name: "Free demo client key" });
  return {
    baseUrl,
    apiKey: apiKey.key,
    serverApiKey: serverApiKey.key,
    freeApiKey: freeApiKey.key,
    operatorEmail: DEMO_OPERATOR_EMAIL,
    operatorPassword,
  };
}

/**
 * The demo game's economy: coins (client-writable), gems (server only), a sword and a potion, and
 * three purchases; the sample game at /play drinks a potion through `drink-potion` (costs one,
 * gives nothing), so the ledger shows every potion used. Tests and fixtures read prices and
 * balances from here, so they follow the seed when it changes.
 */
export const DEMO_ECONOMY = {
  currencies: {
    coins: { id: "coins", name: "Coins", initialBalance: 100, maxBalance: 1_000_000, clientWritable: true },
    gems: { id: "gems", name: "Gems", initialBalance: 0, clientWritable: false },
  },
  items: {
    sword: { id: "sword", name: "Sword" },
    potion: { id: "potion", name: "Potion" },
  },
  purchases: {
    buyPotion: {
      id: "buy-potion",
      name: "Buy a potion",
      costs: [{ currencyId: "coins", amount: 10 }],
      rewards: [{ itemId: "potion", quantity: 1 }],
    },
    drinkPotion: { id: "drink-potion", name: "Drink a potion", costs: [{ itemId: "potion", quantity: 1 }], rewards: [] },
    buySword: {
      id: "buy-sword",
      name: "Buy a sword",
      costs: [
        { currencyId: "coins", amount: 50 },
        { currencyId: "gems", amount: 1 },
      ],
      rewards: [{ itemId: "sword", quantity: 1 }],
    },
  },
} as const satisfies {
  currencies: Record<string, CurrencyInput>;
  items: Record<string, ItemInput>;
  purchases: Record<string, PurchaseInput>;
};

/** Creates DEMO_ECONOMY in a project (the demo seed, and test fixtures shaped like the demo). */
export async function seedDemoEconomy(projectId: string): Promise<void> {
  for (const input of Object.values(DEMO_ECONOMY.currencies)) await createCurrency({ projectId, input });
  for (const input of Object.values(DEMO_ECONOMY.items)) await createItem({ projectId, input });
  for (const input of Object.values(DEMO_ECONOMY.purchases))
    await createPurchase({ projectId, input: structuredClone(input) as PurchaseInput });
}

/**
 * The demo game's real-money store products, so the dashboard's store pages show a catalog: gems
 * on all three stores with a price (Steam needs one: it charges what we send), and a one-time
 * starter pack on the App Store and Google Play. No store settings or credentials: those belong
 * to a real app. Kept out of seedDemoEconomy, which test fixtures share.
 */
export const DEMO_STORE_PRODUCTS = {
  gems500: {
    id: "gems-500",
    name: "500 gems",
    rewards: [{ currencyId: "gems", amount: 500 }],
    appleProductId: "com.example.demogame.gems500",
    googleProductId: "gems_500",
    steamItemId: "1001",
    kind: "consumable",
    priceMicros: 4_990_000,
    priceCurrency: "USD",
  },
  starterPack: {
    id: "starter-pack",
    name: "Starter pack",
    rewards: [
      { itemId: "sword", quantity: 1 },
      { currencyId: "gems", amount: 100 },
    ],
    appleProductId: "com.example.demogame.starterpack",
    googleProductId: "starter_pack",
    steamItemId: null,
    kind: "non_consumable",
    priceMicros: 1_990_000,
    priceCurrency: "USD",
  },
} as const satisfies Record<string, StoreProductInput>;

/** Creates DEMO_STORE_PRODUCTS in a project that has DEMO_ECONOMY, checked by the dashboard's own schema. */
export async function seedDemoStoreProducts(projectId: string): Promise<void> {
  for (const product of Object.values(DEMO_STORE_PRODUCTS))
    await createStoreProduct({ projectId, input: ZStoreProductInput.parse(structuredClone(product)) });
}
