import { z } from "zod";
import { ZEconomyId } from "../../services/economy/schemas";
import { createStoreProductAs, deleteStoreProductAs, updateStoreProductAs } from "../../services/store/products";
import { listStoreProductsAs, listStorePurchasesAs, storePurchaseAs, storeRevenueAs } from "../../services/store/purchases";
import { refundByHandAs } from "../../services/store/refunds";
import {
  STORE_NAMES,
  ZRefundPolicy,
  ZStore,
  ZStoreProductInput,
  ZStoreProductUpdate,
  ZStoreSettingsInput,
} from "../../services/store/schemas";
import {
  listStoreSettingsAs,
  removeStoreSettingsAs,
  rotateNotificationTokenAs,
  setRefundPolicyAs,
  setStoreSettingsAs,
} from "../../services/store/settings";
import { input, projectProcedure, router } from "../init";

/**
 * Real-money stores for operators: the accounts with each store (credentials write-only), the
 * store products, the purchases with refunds by hand, and revenue. Viewers read; admins change
 * (the services decide and audit).
 */
const ZProjectId = z.string().uuid();
const ZProject = z.strictObject({ projectId: ZProjectId });
const ZProductRef = z.strictObject({ projectId: ZProjectId, id: ZEconomyId });
const ZReceiptRef = z.strictObject({ projectId: ZProjectId, receiptId: z.string().uuid() });
const ZDay = z.string().regex(/^\d{4}-\d{2}-\d{2}(T[0-9:.]+Z)?$/, "A date such as 2026-12-09.");

export const ZPurchaseList = z.strictObject({
  projectId: ZProjectId,
  store: z.enum(STORE_NAMES).optional(),
  status: z.enum(["pending", "granted", "refunded", "rejected"]).optional(),
  productId: ZEconomyId.optional(),
  playerId: z.string().uuid().optional(),
  from: ZDay.optional(),
  to: ZDay.optional(),
  q: z.string().trim().max(200).optional(),
  cursor: z.string().max(200).nullish(),
  /** Sent by tRPC's infinite queries; pages only go to older purchases. */
  direction: z.enum(["forward", "backward"]).optional(),
  limit: z.number().int().min(1).max(100).default(25),
});

export const storeRouter = router({
  settings: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ ctx, input }) => listStoreSettingsAs(ctx, input)),
  /** Settings, and the credential when given (never read back: the answer carries its hint). */
  setSettings: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, input: ZStoreSettingsInput })))
    .mutation(({ ctx, input }) => setStoreSettingsAs(ctx, input)),
  removeSettings: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, store: ZStore })))
    .mutation(({ ctx, input }) => removeStoreSettingsAs(ctx, input)),
  /** Google's notification URL with a new token, shown once. */
  rotateNotificationToken: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, store: z.literal("google") })))
    .mutation(({ ctx, input }) => rotateNotificationTokenAs(ctx, input)),
  setRefundPolicy: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, policy: ZRefundPolicy })))
    .mutation(({ ctx, input }) => setRefundPolicyAs(ctx, input)),

  products: projectProcedure("VIEWER")
    .input(input(ZProject))
    .query(({ ctx, input }) => listStoreProductsAs(ctx, input)),
  createProduct: projectProcedure("ADMIN")
    .input(input(z.strictObject({ projectId: ZProjectId, product: ZStoreProductInput })))
    .mutation(({ ctx, input }) => createStoreProductAs(ctx, input)),
  updateProduct: projectProcedure("ADMIN")
    .input(input(ZProductRef.extend({ patch: ZStoreProductUpdate })))
    .mutation(({ ctx, input }) => updateStoreProductAs(ctx, input)),
  deleteProduct: projectProcedure("ADMIN")
    .input(input(ZProductRef))
    .mutation(({ ctx, input }) => deleteStoreProductAs(ctx, input)),

  /** Newest first, keyset-paged; `q` is an exact receipt id, store transaction id or order id. */
  purchases: projectProcedure("VIEWER")
    .input(input(ZPurchaseList))
    .query(({ ctx, input: { cursor, direction: _direction, ...rest } }) =>
      listStorePurchasesAs(ctx, { ...rest, cursor: cursor ?? undefined }),
    ),
  purchase: projectProcedure("VIEWER")
    .input(input(ZReceiptRef))
    .query(({ ctx, input }) => storePurchaseAs(ctx, input)),
  /** Takes back what the purchase granted (not the money: that is the store's console), audited with the reason. */
  refund: projectProcedure("ADMIN")
    .input(input(ZReceiptRef.extend({ reason: z.string().trim().min(3).max(500) })))
    .mutation(({ ctx, input }) => refundByHandAs(ctx, input)),
  /** Production sales still granted, per day and per product, per currency (sandbox and refunded left out). */
  revenue: projectProcedure("VIEWER")
    .input(input(z.strictObject({ projectId: ZProjectId, days: z.number().int().min(1).max(366).default(30) })))
    .query(({ ctx, input }) => storeRevenueAs(ctx, input)),
});
