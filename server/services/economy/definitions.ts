import { onBroadcast } from "../../cluster";
import { isUniqueViolation, pool, prisma, transaction } from "../../db";
import { env } from "../../env";
import { AppError } from "../../errors";
import { invalidateEverywhere } from "../../invalidate";
import { validationError } from "../../validation";
import {
  type CurrencyInput,
  type CurrencyUpdate,
  type ItemInput,
  type ItemUpdate,
  isCurrencyLine,
  type Line,
  type PurchaseInput,
  type PurchaseUpdate,
  purchaseLinesProblem,
} from "./schemas";

/**
 * Economy definitions per project (currencies, items, purchases), managed by operators. The
 * game API reads them on every request, so they are cached per process for DEFINITION_CACHE_TTL_MS as one
 * snapshot per project; a change applies at once in every worker of the instance that made it
 * (invalidateEconomy) and within that time on every other instance.
 */
export type CurrencyDef = { id: string; name: string; initialBalance: number; maxBalance: number | null; clientWritable: boolean };
export type ItemDef = { id: string; name: string; maxStack: number | null };
export type PurchaseDef = { id: string; name: string; costs: Line[]; rewards: Line[] };
export type StoreProductDef = {
  id: string;
  name: string;
  rewards: Line[];
  appleProductId: string | null;
  googleProductId: string | null;
  steamItemId: string | null;
  kind: "consumable" | "non_consumable";
  priceMicros: number | null;
  priceCurrency: string | null;
};
export type EconomyConfig = {
  currencies: Map<string, CurrencyDef>;
  items: Map<string, ItemDef>;
  purchases: Map<string, PurchaseDef>;
  /** Real-money store products (server/services/store), by our id and by each store's id. */
  storeProducts: Map<string, StoreProductDef>;
  byStoreId: { apple: Map<string, StoreProductDef>; google: Map<string, StoreProductDef>; steam: Map<string, StoreProductDef> };
};

const cache = new Map<string, { value: EconomyConfig; expiresAt: number }>();

/** Drops this process's snapshot (before reading fresh definitions inside a change). */
export function forgetEconomy(projectId: string): void {
  cache.delete(projectId);
}

const FORGET_TOPIC = "economy:forget";
/** After a change has ended (committed or not): drops the project's snapshot in every worker of this instance. */
export function invalidateEconomy(projectId: string): Promise<void> {
  return invalidateEverywhere(FORGET_TOPIC, projectId, () => forgetEconomy(projectId));
}
onBroadcast(FORGET_TOPIC, (projectId) => forgetEconomy(projectId as string));

const num = (v: bigint | string | number | null) => (v === null ? null : Number(v));

export async function economyConfig(projectId: string): Promise<EconomyConfig> {
  const now = Date.now();
  const hit = cache.get(projectId);
  if (hit && hit.expiresAt > now) return hit.value;
  // One after another, not Promise.all: inside a transaction() (a dashboard change and its audit
  // entry) these run on the transaction's one connection, which refuses two at once (server/db.ts).
  const currencies = await pool().query<{
    id: string;
    name: string;
    initial_balance: string;
    max_balance: string | null;
    client_writable: boolean;
  }>("SELECT id, name, initial_balance, max_balance, client_writable FROM currencies WHERE project_id = $1 ORDER BY id", [projectId]);
  const items = await pool().query<{ id: string; name: string; max_stack: string | null }>(
    "SELECT id, name, max_stack FROM items WHERE project_id = $1 ORDER BY id",
    [projectId],
  );
  const purchases = await pool().query<{ id: string; name: string; costs: Line[]; rewards: Line[] }>(
    "SELECT id, name, costs, rewards FROM purchases WHERE project_id = $1 ORDER BY id",
    [projectId],
  );
  const storeProducts = await pool().query<{
    id: string;
    name: string;
    rewards: Line[];
    apple_product_id: string | null;
    google_product_id: string | null;
    steam_item_id: string | null;
    kind: "consumable" | "non_consumable";
    price_micros: string | null;
    price_currency: string | null;
  }>(
    `SELECT id, name, rewards, apple_product_id, google_product_id, steam_item_id, kind, price_micros, price_currency
       FROM store_products WHERE project_id = $1 ORDER BY id`,
    [projectId],
  );
  const products = storeProducts.rows.map(
    (r): StoreProductDef => ({
      id: r.id,
      name: r.name,
      rewards: r.rewards,
      appleProductId: r.apple_product_id,
      googleProductId: r.google_product_id,
      steamItemId: r.steam_item_id,
      kind: r.kind,
      priceMicros: num(r.price_micros),
      priceCurrency: r.price_currency,
    }),
  );
  const byStore = (key: "appleProductId" | "googleProductId" | "steamItemId") =>
    new Map(products.flatMap((p) => (p[key] === null ? [] : [[p[key], p] as const])));
  const value: EconomyConfig = {
    currencies: new Map(
      currencies.rows.map((r) => [
        r.id,
        {
          id: r.id,
          name: r.name,
          initialBalance: Number(r.initial_balance),
          maxBalance: num(r.max_balance),
          clientWritable: r.client_writable,
        },
      ]),
    ),
    items: new Map(items.rows.map((r) => [r.id, { id: r.id, name: r.name, maxStack: num(r.max_stack) }])),
    purchases: new Map(purchases.rows.map((r) => [r.id, { id: r.id, name: r.name, costs: r.costs, rewards: r.rewards }])),
    storeProducts: new Map(products.map((p) => [p.id, p])),
    byStoreId: { apple: byStore("appleProductId"), google: byStore("googleProductId"), steam: byStore("steamItemId") },
  };
  if (cache.size > 10_000) cache.clear();
  cache.set(projectId, { value, expiresAt: now + env().DEFINITION_CACHE_TTL_MS });
  return value;
}

function exists(what: string, id: string): AppError {
  return new AppError("ALREADY_EXISTS", { message: `A ${what} with id "${id}" exists.` });
}

// ---- Currencies ----

export async function listCurrencies(o: { projectId: string }): Promise<CurrencyDef[]> {
  forgetEconomy(o.projectId);
  return [...(await economyConfig(o.projectId)).currencies.values()];
}

export async function createCurrency(o: { projectId: string; input: CurrencyInput }): Promise<CurrencyDef> {
  const i = o.input;
  try {
    await prisma().currency.create({
      data: {
        projectId: o.projectId,
        id: i.id,
        name: i.name.trim(),
        initialBalance: BigInt(i.initialBalance ?? 0),
        maxBalance: i.maxBalance == null ? null : BigInt(i.maxBalance),
        clientWritable: i.clientWritable ?? true,
      },
      select: { id: true },
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw exists("currency", i.id);
    throw error;
  }
  return currencyOf(o.projectId, i.id);
}

async function currencyOf(projectId: string, id: string): Promise<CurrencyDef> {
  forgetEconomy(projectId);
  const found = (await economyConfig(projectId)).currencies.get(id);
  if (!found) throw new AppError("CURRENCY_NOT_FOUND");
  return found;
}

/** Name, initial balance (for wallets that do not exist yet), max and writability. */
export async function updateCurrency(o: { projectId: string; id: string; input: CurrencyUpdate }): Promise<CurrencyDef> {
  const current = await currencyOf(o.projectId, o.id);
  const next = { ...current, ...Object.fromEntries(Object.entries(o.input).filter(([, v]) => v !== undefined)) } as CurrencyDef;
  if (next.maxBalance !== null && next.maxBalance < next.initialBalance) {
    throw validationError([{ path: "maxBalance", message: "maxBalance must not be below initialBalance." }]);
  }
  await prisma().currency.updateMany({
    where: { projectId: o.projectId, id: o.id },
    data: {
      name: next.name.trim(),
      initialBalance: BigInt(next.initialBalance),
      maxBalance: next.maxBalance === null ? null : BigInt(next.maxBalance),
      clientWritable: next.clientWritable,
      updatedAt: new Date(),
    },
  });
  return currencyOf(o.projectId, o.id);
}

/** Refused while a player holds some or a purchase refers to it; empty wallets go with it. */
export async function deleteCurrency(o: { projectId: string; id: string }): Promise<void> {
  await currencyOf(o.projectId, o.id);
  await refuseIfReferenced(o.projectId, { currencyId: o.id });
  await transaction(async (client) => {
    const held = await client.query("SELECT 1 FROM wallets WHERE project_id = $1 AND currency_id = $2 AND balance > 0 LIMIT 1 FOR UPDATE", [
      o.projectId,
      o.id,
    ]);
    if (held.rowCount) throw new AppError("IN_USE", { message: "Players hold this currency.", details: { reason: "held" } });
    await client.query("DELETE FROM wallets WHERE project_id = $1 AND currency_id = $2", [o.projectId, o.id]);
    await client.query("DELETE FROM currencies WHERE project_id = $1 AND id = $2", [o.projectId, o.id]);
  });
  forgetEconomy(o.projectId);
}

async function refuseIfReferenced(projectId: string, line: { currencyId: string } | { itemId: string }): Promise<void> {
  const { rows } = await pool().query<{ id: string }>(
    "SELECT id FROM purchases WHERE project_id = $1 AND (costs @> $2::jsonb OR rewards @> $2::jsonb) ORDER BY id",
    [projectId, JSON.stringify([line])],
  );
  if (rows.length) {
    throw new AppError("IN_USE", {
      message: `Purchases refer to it: ${rows.map((r) => r.id).join(", ")}.`,
      details: { reason: "referenced", purchases: rows.map((r) => r.id) },
    });
  }
  const products = await pool().query<{ id: string }>(
    "SELECT id FROM store_products WHERE project_id = $1 AND rewards @> $2::jsonb ORDER BY id",
    [projectId, JSON.stringify([line])],
  );
  if (products.rows.length) {
    throw new AppError("IN_USE", {
      message: `Store products grant it: ${products.rows.map((r) => r.id).join(", ")}.`,
      details: { reason: "referenced", storeProducts: products.rows.map((r) => r.id) },
    });
  }
  // A leaderboard's rewards: [{currencies: [{id}], items: [{id}]}].
  const reward = "currencyId" in line ? { currencies: [{ id: line.currencyId }] } : { items: [{ id: line.itemId }] };
  const boards = await pool().query<{ id: string }>(
    "SELECT id FROM leaderboards WHERE project_id = $1 AND rewards @> $2::jsonb ORDER BY id",
    [projectId, JSON.stringify([reward])],
  );
  if (boards.rows.length) {
    throw new AppError("IN_USE", {
      message: `Leaderboard rewards refer to it: ${boards.rows.map((r) => r.id).join(", ")}.`,
      details: { reason: "referenced", leaderboards: boards.rows.map((r) => r.id) },
    });
  }
}

// ---- Items ----

export async function listItems(o: { projectId: string }): Promise<ItemDef[]> {
  forgetEconomy(o.projectId);
  return [...(await economyConfig(o.projectId)).items.values()];
}

async function itemOf(projectId: string, id: string): Promise<ItemDef> {
  forgetEconomy(projectId);
  const found = (await economyConfig(projectId)).items.get(id);
  if (!found) throw new AppError("ITEM_NOT_FOUND");
  return found;
}

export async function createItem(o: { projectId: string; input: ItemInput }): Promise<ItemDef> {
  try {
    await prisma().item.create({
      data: {
        projectId: o.projectId,
        id: o.input.id,
        name: o.input.name.trim(),
        maxStack: o.input.maxStack == null ? null : BigInt(o.input.maxStack),
      },
      select: { id: true },
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw exists("item", o.input.id);
    throw error;
  }
  return itemOf(o.projectId, o.input.id);
}

export async function updateItem(o: { projectId: string; id: string; input: ItemUpdate }): Promise<ItemDef> {
  const current = await itemOf(o.projectId, o.id);
  await prisma().item.updateMany({
    where: { projectId: o.projectId, id: o.id },
    data: {
      name: (o.input.name ?? current.name).trim(),
      maxStack:
        o.input.maxStack === undefined
          ? current.maxStack === null
            ? null
            : BigInt(current.maxStack)
          : o.input.maxStack === null
            ? null
            : BigInt(o.input.maxStack),
      updatedAt: new Date(),
    },
  });
  return itemOf(o.projectId, o.id);
}

export async function deleteItem(o: { projectId: string; id: string }): Promise<void> {
  await itemOf(o.projectId, o.id);
  await refuseIfReferenced(o.projectId, { itemId: o.id });
  await transaction(async (client) => {
    const held = await client.query("SELECT 1 FROM inventory WHERE project_id = $1 AND item_id = $2 AND quantity > 0 LIMIT 1 FOR UPDATE", [
      o.projectId,
      o.id,
    ]);
    if (held.rowCount) throw new AppError("IN_USE", { message: "Players hold this item.", details: { reason: "held" } });
    await client.query("DELETE FROM inventory WHERE project_id = $1 AND item_id = $2", [o.projectId, o.id]);
    await client.query("DELETE FROM items WHERE project_id = $1 AND id = $2", [o.projectId, o.id]);
  });
  forgetEconomy(o.projectId);
}

// ---- Purchases ----

/** Costs and rewards must name existing currencies and items, each at most once per side, and make a purchase that changes something. */
export async function checkLines(projectId: string, lines: { costs: Line[]; rewards: Line[] }): Promise<void> {
  forgetEconomy(projectId);
  const config = await economyConfig(projectId);
  const issues: Array<{ path: string; message: string }> = [];
  for (const side of ["costs", "rewards"] as const) {
    const seen = new Set<string>();
    lines[side].forEach((line, i) => {
      const ref = isCurrencyLine(line) ? `currency:${line.currencyId}` : `item:${line.itemId}`;
      if (seen.has(ref)) issues.push({ path: `${side}.${i}`, message: `${ref} is listed twice.` });
      seen.add(ref);
      if (isCurrencyLine(line)) {
        if (!config.currencies.has(line.currencyId))
          issues.push({ path: `${side}.${i}.currencyId`, message: `No currency "${line.currencyId}".` });
      } else if (!config.items.has(line.itemId)) {
        issues.push({ path: `${side}.${i}.itemId`, message: `No item "${line.itemId}".` });
      }
    });
  }
  const problem = purchaseLinesProblem(lines.costs, lines.rewards);
  if (problem) issues.push({ path: "rewards", message: problem });
  if (issues.length) throw validationError(issues);
}

export async function listPurchases(o: { projectId: string }): Promise<PurchaseDef[]> {
  forgetEconomy(o.projectId);
  return [...(await economyConfig(o.projectId)).purchases.values()];
}

async function purchaseOf(projectId: string, id: string): Promise<PurchaseDef> {
  forgetEconomy(projectId);
  const found = (await economyConfig(projectId)).purchases.get(id);
  if (!found) throw new AppError("PURCHASE_NOT_FOUND");
  return found;
}

export async function createPurchase(o: { projectId: string; input: PurchaseInput }): Promise<PurchaseDef> {
  await checkLines(o.projectId, o.input);
  try {
    await prisma().purchase.create({
      data: { projectId: o.projectId, id: o.input.id, name: o.input.name.trim(), costs: o.input.costs, rewards: o.input.rewards },
      select: { id: true },
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw exists("purchase", o.input.id);
    throw error;
  }
  return purchaseOf(o.projectId, o.input.id);
}

export async function updatePurchase(o: { projectId: string; id: string; input: PurchaseUpdate }): Promise<PurchaseDef> {
  const current = await purchaseOf(o.projectId, o.id);
  const costs = o.input.costs ?? current.costs;
  const rewards = o.input.rewards ?? current.rewards;
  await checkLines(o.projectId, { costs, rewards });
  await prisma().purchase.updateMany({
    where: { projectId: o.projectId, id: o.id },
    data: { name: (o.input.name ?? current.name).trim(), costs, rewards, updatedAt: new Date() },
  });
  return purchaseOf(o.projectId, o.id);
}

export async function deletePurchase(o: { projectId: string; id: string }): Promise<void> {
  const { count } = await prisma().purchase.deleteMany({ where: { projectId: o.projectId, id: o.id } });
  forgetEconomy(o.projectId);
  if (count === 0) throw new AppError("PURCHASE_NOT_FOUND");
}

// ---- Bulk, for configuration as code ----

type CurrencyRow = { id: string; name: string; initialBalance: number; maxBalance: number | null; clientWritable: boolean };
type ItemRow = { id: string; name: string; maxStack: number | null };
type PurchaseRow = { id: string; name: string; costs: Line[]; rewards: Line[] };
export type EconomyChanges = {
  currencies: { upsert: CurrencyRow[]; delete: string[] };
  items: { upsert: ItemRow[]; delete: string[] };
  purchases: { upsert: PurchaseRow[]; delete: string[] };
  /** Absent: store products are not touched. */
  storeProducts?: { upsert: StoreProductDef[]; delete: string[] };
};

/**
 * Applies a whole economy diff in a constant number of statements (a config import of 10,000
 * purchases was quadratic through the one-at-a-time services: each re-read every definition).
 * The caller has validated it as a document (ids, names, max ≥ initial, purchase lines naming
 * definitions of the result) and runs it inside its transaction; deletions still refuse what
 * players hold, under row locks, as deleteCurrency / deleteItem do. Order: definitions purchases
 * and store products name first, purchases, store products, then what those stopped naming.
 */
export async function applyEconomyChanges(projectId: string, c: EconomyChanges): Promise<void> {
  const q = (text: string, values: unknown[]) => pool().query(text, values);
  if (c.currencies.upsert.length) {
    await q(
      `INSERT INTO currencies (project_id, id, name, initial_balance, max_balance, client_writable)
       SELECT $1, x.id, btrim(x.name), x."initialBalance", x."maxBalance", x."clientWritable"
         FROM jsonb_to_recordset($2::jsonb) AS x(id text, name text, "initialBalance" bigint, "maxBalance" bigint, "clientWritable" boolean)
       ON CONFLICT (project_id, id) DO UPDATE SET name = EXCLUDED.name, initial_balance = EXCLUDED.initial_balance,
          max_balance = EXCLUDED.max_balance, client_writable = EXCLUDED.client_writable, updated_at = now()`,
      [projectId, JSON.stringify(c.currencies.upsert)],
    );
  }
  if (c.items.upsert.length) {
    await q(
      `INSERT INTO items (project_id, id, name, max_stack)
       SELECT $1, x.id, btrim(x.name), x."maxStack" FROM jsonb_to_recordset($2::jsonb) AS x(id text, name text, "maxStack" bigint)
       ON CONFLICT (project_id, id) DO UPDATE SET name = EXCLUDED.name, max_stack = EXCLUDED.max_stack, updated_at = now()`,
      [projectId, JSON.stringify(c.items.upsert)],
    );
  }
  if (c.purchases.delete.length)
    await q("DELETE FROM purchases WHERE project_id = $1 AND id = ANY($2::text[])", [projectId, c.purchases.delete]);
  if (c.purchases.upsert.length) {
    await q(
      `INSERT INTO purchases (project_id, id, name, costs, rewards)
       SELECT $1, x.id, btrim(x.name), x.costs, x.rewards FROM jsonb_to_recordset($2::jsonb) AS x(id text, name text, costs jsonb, rewards jsonb)
       ON CONFLICT (project_id, id) DO UPDATE SET name = EXCLUDED.name, costs = EXCLUDED.costs, rewards = EXCLUDED.rewards, updated_at = now()`,
      [projectId, JSON.stringify(c.purchases.upsert)],
    );
  }
  if (c.storeProducts) await applyStoreProductChanges(projectId, c.storeProducts);
  const held = async (table: "wallets" | "inventory", column: "currency_id" | "item_id", amount: "balance" | "quantity", ids: string[]) => {
    const { rows } = await pool().query<{ id: string }>(
      `SELECT ${column} AS id FROM ${table} WHERE project_id = $1 AND ${column} = ANY($2::text[]) AND ${amount} > 0 LIMIT 1 FOR UPDATE`,
      [projectId, ids],
    );
    if (rows[0]) throw new AppError("IN_USE", { message: `Players hold "${rows[0].id}".`, details: { reason: "held", id: rows[0].id } });
  };
  if (c.currencies.delete.length) {
    await held("wallets", "currency_id", "balance", c.currencies.delete);
    await q("DELETE FROM wallets WHERE project_id = $1 AND currency_id = ANY($2::text[])", [projectId, c.currencies.delete]);
    await q("DELETE FROM currencies WHERE project_id = $1 AND id = ANY($2::text[])", [projectId, c.currencies.delete]);
  }
  if (c.items.delete.length) {
    await held("inventory", "item_id", "quantity", c.items.delete);
    await q("DELETE FROM inventory WHERE project_id = $1 AND item_id = ANY($2::text[])", [projectId, c.items.delete]);
    await q("DELETE FROM items WHERE project_id = $1 AND id = ANY($2::text[])", [projectId, c.items.delete]);
  }
  forgetEconomy(projectId);
}

/**
 * Store products deleted, then created or changed. A store id is unique per project and checked
 * row by row, so two products trading store ids (or a new product taking a deleted one's) would
 * collide mid-statement: the changed products' store ids are cleared first, inside the caller's
 * transaction, where no receipt sees the gap.
 */
async function applyStoreProductChanges(projectId: string, c: { upsert: StoreProductDef[]; delete: string[] }): Promise<void> {
  const q = (text: string, values: unknown[]) => pool().query(text, values);
  if (c.delete.length) await q("DELETE FROM store_products WHERE project_id = $1 AND id = ANY($2::text[])", [projectId, c.delete]);
  if (c.upsert.length === 0) return;
  await q(
    `UPDATE store_products SET apple_product_id = NULL, google_product_id = NULL, steam_item_id = NULL
      WHERE project_id = $1 AND id = ANY($2::text[])`,
    [projectId, c.upsert.map((p) => p.id)],
  );
  await q(
    `INSERT INTO store_products (project_id, id, name, rewards, apple_product_id, google_product_id, steam_item_id, kind, price_micros, price_currency)
     SELECT $1, x.id, btrim(x.name), x.rewards, x."appleProductId", x."googleProductId", x."steamItemId", x.kind, x."priceMicros", x."priceCurrency"
       FROM jsonb_to_recordset($2::jsonb) AS x(id text, name text, rewards jsonb, "appleProductId" text, "googleProductId" text,
            "steamItemId" text, kind text, "priceMicros" bigint, "priceCurrency" text)
     ON CONFLICT (project_id, id) DO UPDATE SET name = EXCLUDED.name, rewards = EXCLUDED.rewards,
        apple_product_id = EXCLUDED.apple_product_id, google_product_id = EXCLUDED.google_product_id,
        steam_item_id = EXCLUDED.steam_item_id, kind = EXCLUDED.kind, price_micros = EXCLUDED.price_micros,
        price_currency = EXCLUDED.price_currency, updated_at = now()`,
    [projectId, JSON.stringify(c.upsert)],
  );
}
