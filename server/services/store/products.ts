import { pool } from "../../db";
import { AppError } from "../../errors";
import { validationError } from "../../validation";
import { type OperatorContext, runCommand } from "../command";
import { checkLines, economyConfig, forgetEconomy, invalidateEconomy, type StoreProductDef } from "../economy/definitions";
import type { StoreProductInput, StoreProductUpdate } from "./schemas";

/**
 * Store products: what a real-money product grants, one product of ours with its id in each
 * store. Kept in the economy's cached snapshot (economyConfig().storeProducts / byStoreId), so a
 * receipt's product is found without a query; changed by admins through runCommand.
 */
export async function listStoreProducts(o: { projectId: string }): Promise<StoreProductDef[]> {
  forgetEconomy(o.projectId);
  return [...(await economyConfig(o.projectId)).storeProducts.values()];
}

async function productOf(projectId: string, id: string): Promise<StoreProductDef> {
  forgetEconomy(projectId);
  const found = (await economyConfig(projectId)).storeProducts.get(id);
  if (!found) throw new AppError("NOT_FOUND", { message: "Store product not found." });
  return found;
}

/** A store id names one product per project: the unique index says which store id is taken. */
function storeIdTaken(error: unknown): AppError | null {
  const { code, constraint } = error as { code?: string; constraint?: string };
  if (code !== "23505") return null;
  if (constraint === "store_products_pkey") return new AppError("ALREADY_EXISTS", { message: "A store product with this id exists." });
  const store = /store_products_(apple|google|steam)_key/.exec(constraint ?? "")?.[1];
  const field = store === "apple" ? "appleProductId" : store === "google" ? "googleProductId" : "steamItemId";
  return validationError([{ path: field, message: "Another store product has this store id." }]);
}

async function write(projectId: string, p: StoreProductDef, insert: boolean): Promise<void> {
  await checkLines(projectId, { costs: [], rewards: p.rewards });
  const values = [
    projectId,
    p.id,
    p.name.trim(),
    JSON.stringify(p.rewards),
    p.appleProductId,
    p.googleProductId,
    p.steamItemId,
    p.kind,
    p.priceMicros === null ? null : String(p.priceMicros),
    p.priceCurrency,
  ];
  try {
    await pool().query(
      insert
        ? `INSERT INTO store_products (project_id, id, name, rewards, apple_product_id, google_product_id, steam_item_id, kind, price_micros, price_currency)
           VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10)`
        : `UPDATE store_products SET name = $3, rewards = $4::jsonb, apple_product_id = $5, google_product_id = $6, steam_item_id = $7,
                  kind = $8, price_micros = $9, price_currency = $10, updated_at = now()
            WHERE project_id = $1 AND id = $2`,
      values,
    );
  } catch (error) {
    throw storeIdTaken(error) ?? error;
  }
}

export async function createStoreProduct(o: { projectId: string; input: StoreProductInput }): Promise<StoreProductDef> {
  const i = o.input;
  await write(
    o.projectId,
    {
      id: i.id,
      name: i.name,
      rewards: i.rewards,
      appleProductId: i.appleProductId ?? null,
      googleProductId: i.googleProductId ?? null,
      steamItemId: i.steamItemId ?? null,
      kind: i.kind ?? "consumable",
      priceMicros: i.priceMicros ?? null,
      priceCurrency: i.priceCurrency ?? null,
    },
    true,
  );
  return productOf(o.projectId, i.id);
}

export async function updateStoreProduct(o: { projectId: string; id: string; input: StoreProductUpdate }): Promise<StoreProductDef> {
  const current = await productOf(o.projectId, o.id);
  const next = { ...current, ...Object.fromEntries(Object.entries(o.input).filter(([, v]) => v !== undefined)) } as StoreProductDef;
  if (!next.appleProductId && !next.googleProductId && !next.steamItemId)
    throw validationError([{ path: "appleProductId", message: "Give the product's id in at least one store." }]);
  if (next.steamItemId && next.priceMicros === null)
    throw validationError([{ path: "priceMicros", message: "Steam charges the price we send: a Steam product needs one." }]);
  await write(o.projectId, next, false);
  return productOf(o.projectId, o.id);
}

/** Sales keep their product id (store_transactions.product_id is text): deleting a product stops new grants only. */
export async function deleteStoreProduct(o: { projectId: string; id: string }): Promise<void> {
  const { rowCount } = await pool().query("DELETE FROM store_products WHERE project_id = $1 AND id = $2", [o.projectId, o.id]);
  forgetEconomy(o.projectId);
  if (!rowCount) throw new AppError("NOT_FOUND", { message: "Store product not found." });
}

// ---- Operators (admins and owners), audited ----

const forget = (projectId: string) => () => invalidateEconomy(projectId);

export const createStoreProductAs = (ctx: OperatorContext, o: { projectId: string; product: StoreProductInput }) =>
  runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "store.product.create",
    target: (created: StoreProductDef) => created.id,
    after: (created: StoreProductDef) => created,
    run: () => createStoreProduct({ projectId: o.projectId, input: o.product }),
    invalidate: forget(o.projectId),
  });

export const updateStoreProductAs = (ctx: OperatorContext, o: { projectId: string; id: string; patch: StoreProductUpdate }) =>
  runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "store.product.update",
    target: o.id,
    before: () => productOf(o.projectId, o.id),
    after: (updated: StoreProductDef) => updated,
    run: () => updateStoreProduct({ projectId: o.projectId, id: o.id, input: o.patch }),
    invalidate: forget(o.projectId),
  });

export const deleteStoreProductAs = (ctx: OperatorContext, o: { projectId: string; id: string }) =>
  runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "store.product.delete",
    target: o.id,
    before: () => productOf(o.projectId, o.id),
    run: async () => {
      await deleteStoreProduct(o);
      return { deleted: true as const };
    },
    invalidate: forget(o.projectId),
  });
