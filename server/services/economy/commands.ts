import { type OperatorContext, runCommand } from "../command";
import {
  createCurrency,
  createItem,
  createPurchase,
  deleteCurrency,
  deleteItem,
  deletePurchase,
  economyConfig,
  forgetEconomy,
  invalidateEconomy,
  updateCurrency,
  updateItem,
  updatePurchase,
} from "./definitions";
import type { CurrencyInput, CurrencyUpdate, ItemInput, ItemUpdate, PurchaseInput, PurchaseUpdate } from "./schemas";
import { adjustPlayerEconomy } from "./wallet";

/**
 * The economy changed by operators (admins and owners), through runCommand: the role check, one
 * transaction with the "before" read, the change and its audit row, and the project's definition
 * cache forgotten afterwards, committed or not (the change filled it as it read inside).
 */
type Kind = "currencies" | "items" | "purchases";
type Ref = { projectId: string; id: string };
const SINGULAR: Record<Kind, string> = { currencies: "currency", items: "item", purchases: "purchase" };
const forget = (projectId: string) => () => invalidateEconomy(projectId);

async function definitionOf(projectId: string, kind: Kind, id: string) {
  forgetEconomy(projectId);
  return (await economyConfig(projectId))[kind].get(id) ?? null;
}

function createAs<T extends { id: string }>(ctx: OperatorContext, projectId: string, kind: Kind, create: () => Promise<T>): Promise<T> {
  return runCommand(ctx, {
    projectId,
    minimum: "ADMIN",
    action: `economy.${SINGULAR[kind]}.create`,
    target: (created) => created.id,
    after: (created) => created,
    run: create,
    invalidate: forget(projectId),
  });
}

/** `reason`: why the operator changed it (the dashboard asks when confirming), kept in the audit row's "after". */
function updateAs<T>(ctx: OperatorContext, ref: Ref & { reason?: string }, kind: Kind, update: () => Promise<T>): Promise<T> {
  return runCommand(ctx, {
    projectId: ref.projectId,
    minimum: "ADMIN",
    action: `economy.${SINGULAR[kind]}.update`,
    target: ref.id,
    before: () => definitionOf(ref.projectId, kind, ref.id),
    after: (updated) => (ref.reason ? { ...updated, reason: ref.reason } : updated),
    run: update,
    invalidate: forget(ref.projectId),
  });
}

function deleteAs(ctx: OperatorContext, ref: Ref, kind: Kind, remove: (ref: Ref) => Promise<void>): Promise<{ deleted: true }> {
  return runCommand(ctx, {
    projectId: ref.projectId,
    minimum: "ADMIN",
    action: `economy.${SINGULAR[kind]}.delete`,
    target: ref.id,
    before: () => definitionOf(ref.projectId, kind, ref.id),
    run: async () => {
      await remove({ projectId: ref.projectId, id: ref.id });
      return { deleted: true as const };
    },
    invalidate: forget(ref.projectId),
  });
}

export const createCurrencyAs = (ctx: OperatorContext, o: { projectId: string; currency: CurrencyInput }) =>
  createAs(ctx, o.projectId, "currencies", () => createCurrency({ projectId: o.projectId, input: o.currency }));
export const updateCurrencyAs = (ctx: OperatorContext, o: Ref & { patch: CurrencyUpdate; reason?: string }) =>
  updateAs(ctx, o, "currencies", () => updateCurrency({ projectId: o.projectId, id: o.id, input: o.patch }));
/** Refused (IN_USE) while a player holds some or a purchase refers to it. */
export const deleteCurrencyAs = (ctx: OperatorContext, o: Ref) => deleteAs(ctx, o, "currencies", deleteCurrency);

export const createItemAs = (ctx: OperatorContext, o: { projectId: string; item: ItemInput }) =>
  createAs(ctx, o.projectId, "items", () => createItem({ projectId: o.projectId, input: o.item }));
export const updateItemAs = (ctx: OperatorContext, o: Ref & { patch: ItemUpdate; reason?: string }) =>
  updateAs(ctx, o, "items", () => updateItem({ projectId: o.projectId, id: o.id, input: o.patch }));
export const deleteItemAs = (ctx: OperatorContext, o: Ref) => deleteAs(ctx, o, "items", deleteItem);

export const createPurchaseAs = (ctx: OperatorContext, o: { projectId: string; purchase: PurchaseInput }) =>
  createAs(ctx, o.projectId, "purchases", () => createPurchase({ projectId: o.projectId, input: o.purchase }));
export const updatePurchaseAs = (ctx: OperatorContext, o: Ref & { patch: PurchaseUpdate; reason?: string }) =>
  updateAs(ctx, o, "purchases", () => updatePurchase({ projectId: o.projectId, id: o.id, input: o.patch }));
export const deletePurchaseAs = (ctx: OperatorContext, o: Ref) => deleteAs(ctx, o, "purchases", deletePurchase);

export type Adjustment = {
  projectId: string;
  playerId: string;
  direction: "grant" | "revoke";
  currencies: Array<{ currencyId: string; amount: number }>;
  items: Array<{ itemId: string; quantity: number }>;
  reason: string;
  /** The bulk action this change is part of (recorded in the audit row, see players/bulk.ts). */
  batch?: string;
};

/**
 * Grants or revokes currencies and items with a reason: a ledger row as the operator's change
 * (with the request id), and an audit row whose "before" is derived from the result (after − the
 * signed change; the ledger row holds the exact values).
 */
export function adjustPlayerAs(ctx: OperatorContext, o: Adjustment) {
  const sign = o.direction === "grant" ? 1 : -1;
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: `economy.${o.direction}`,
    target: o.playerId,
    run: (actor) =>
      adjustPlayerEconomy({
        actor,
        playerId: o.playerId,
        direction: o.direction,
        currencies: o.currencies,
        items: o.items,
        reason: o.reason,
        requestId: ctx.requestId,
      }),
    beforeOf: (applied) => ({
      balances: applied.balances.map((b) => ({
        id: b.id,
        balance: b.balance - sign * (o.currencies.find((c) => c.currencyId === b.id)?.amount ?? 0),
      })),
      inventory: applied.inventory.map((i) => ({
        itemId: i.itemId,
        quantity: i.quantity - sign * (o.items.find((x) => x.itemId === i.itemId)?.quantity ?? 0),
      })),
    }),
    after: (applied) => ({
      ...(o.batch ? { batch: o.batch } : {}),
      reason: o.reason,
      currencies: o.currencies,
      items: o.items,
      transactionId: applied.transactionId,
      balances: applied.balances,
      inventory: applied.inventory,
    }),
    invalidate: forget(o.projectId),
  });
}
