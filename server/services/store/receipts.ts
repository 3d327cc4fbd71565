import { createHash, randomBytes } from "node:crypto";
import type pg from "pg";
import type { PlayerActor } from "../../actor";
import { uuidv7 } from "../../crypto";
import { pool, transaction } from "../../db";
import { env } from "../../env";
import { AppError } from "../../errors";
import { logger } from "../../log";
import { countStoreReceipt } from "../../metrics";
import type { StoreName, VerifiedPurchase } from "../../stores/types";
import { RECEIPT_REFUSALS } from "../../stores/types";
import { economyConfig, type StoreProductDef } from "../economy/definitions";
import { applyStoreChange } from "../economy/wallet";
import { withEvents } from "../webhooks/emit";
import { emitEvent } from "../webhooks/events";
import { appleGateway, googleGateway, steamGateway } from "./gateways";
import { heldReversal, lockStoreTransaction } from "./refunds";
import type { ReceiptBody, ReceiptResult } from "./schemas";
import { openStoreSecret, sealStoreSecret } from "./settings";

/**
 * Real-money receipts, exactly once. The store is asked first (outside any transaction: a store's
 * round trip must not hold a connection), then one transaction claims the store transaction id
 * and grants:
 *
 *   INSERT store_transactions … ON CONFLICT (project, store, store transaction id) WHERE status <> 'rejected'
 *
 * The partial unique index is the rule, not an idempotency key: the same receipt from two
 * devices, two players or twenty parallel requests inserts once; the others wait on the index
 * until the first commits, find its row and answer it (the same player: the first result,
 * `replayed: true`; another player: 409 RECEIPT_ALREADY_USED). A crash before the commit leaves
 * nothing, so the retry grants; after it, the retry replays. Steam's orders exist as `pending`
 * rows from POST /economy/receipts/steam: the claim turns the player's own pending row into the
 * grant. A transaction the store reported refunded before its receipt came is refused
 * (RECEIPT_CANCELLED). Every refusal is stored as a `rejected` row (support sees it) and counted.
 */
type Row = {
  id: string;
  store: StoreName;
  player_id: string | null;
  status: "pending" | "granted" | "refunded" | "rejected";
  store_transaction_id: string;
  product_id: string | null;
  store_product_id: string | null;
  quantity: number;
  environment: "production" | "sandbox" | null;
  ledger_transaction_id: string | null;
  store_finished: boolean;
  evidence: Record<string, unknown>;
};

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const isRefusal = (error: unknown): error is AppError =>
  error instanceof AppError && ((RECEIPT_REFUSALS as readonly string[]).includes(error.code) || error.code === "RECEIPT_ALREADY_USED");

export async function redeemReceipt(o: { actor: PlayerActor; body: ReceiptBody; requestId?: string }): Promise<ReceiptResult> {
  const { projectId, playerId } = o.actor;
  const store = o.body.store;
  const tokenSha = o.body.store === "google" ? sha256(o.body.purchaseToken) : null;
  // The store's transaction id once the store has named it: a refusal after that is kept under it.
  const seen: { transactionId?: string } = {};
  try {
    // A Google token redeemed before needs no call to Google (their API has a quota): answer from the row.
    if (tokenSha) {
      const known = await rowBy(projectId, "google", { tokenSha });
      if (known && known.status !== "pending")
        return await answerExisting(o.actor, known, tokenSha && o.body.store === "google" ? o.body : null);
    }
    const { verified, product } = await verify(o.actor, o.body, seen);
    const result = await grantOnce({ actor: o.actor, verified, product, tokenSha, requestId: o.requestId });
    if (o.body.store === "google" && !result.finished) await finishAtGoogle(projectId, result.receiptId, product, o.body);
    countStoreReceipt(store, result.answer.replayed ? "replayed" : "granted");
    return result.answer;
  } catch (error) {
    if (isRefusal(error)) {
      countStoreReceipt(store, error.code);
      // A pending purchase is asked about again until it is paid: not a rejection to keep.
      if (error.code !== "RECEIPT_PENDING")
        await recordRejection({
          projectId,
          playerId,
          store,
          code: error.code,
          storeTransactionId: seen.transactionId ?? null,
          body: o.body,
        }).catch((cause: unknown) => logger("store").warn({ err: cause }, "could not record a rejected receipt"));
    }
    throw error;
  }
}

/** What the store says, and which product of ours it is; every refusal is an AppError with its code. */
async function verify(
  actor: PlayerActor,
  body: ReceiptBody,
  seen: { transactionId?: string },
): Promise<{ verified: VerifiedPurchase; product: StoreProductDef }> {
  const config = await economyConfig(actor.projectId);
  let verified: VerifiedPurchase;
  if (body.store === "apple") {
    verified = await (await appleGateway(actor.projectId)).verifyTransaction(body.signedTransaction);
  } else if (body.store === "google") {
    // Only products we sell are sent to Google (the path names the product).
    if (!config.byStoreId.google.has(body.productId))
      throw new AppError("RECEIPT_WRONG_PRODUCT", { details: { productId: body.productId } });
    const google = await googleGateway(actor.projectId);
    verified = await google.client.verifyProduct(body.productId, body.purchaseToken);
    if (!google.environments.includes(verified.environment))
      throw new AppError("RECEIPT_WRONG_ENVIRONMENT", { details: { environment: verified.environment } });
  } else {
    const order = await rowBy(actor.projectId, "steam", { storeTransactionId: body.orderId });
    if (!order) throw new AppError("RECEIPT_INVALID", { message: "No Steam order with this id was started here." });
    if (order.player_id !== actor.playerId)
      throw new AppError("RECEIPT_ALREADY_USED", { message: "This Steam order belongs to another player." });
    if (order.status !== "pending")
      return { verified: replayMarker(order), product: productOrThrow(config.storeProducts.get(order.product_id ?? "")) };
    const steam = await steamGateway(actor.projectId);
    const steamId = typeof order.evidence.steamId === "string" ? order.evidence.steamId : undefined;
    verified = await steam.settle(body.orderId, { itemId: order.store_product_id ?? "", quantity: order.quantity, steamId });
  }
  seen.transactionId = verified.transactionId;
  const product = config.byStoreId[body.store].get(verified.productId);
  if (!product) throw new AppError("RECEIPT_WRONG_PRODUCT", { details: { productId: verified.productId } });
  // A non-consumable is owned once: a receipt for more than one unit of it is not one a store issues.
  const maxQuantity = product.kind === "non_consumable" ? 1 : env().STORE_MAX_QUANTITY;
  if (verified.quantity > maxQuantity)
    throw new AppError("RECEIPT_INVALID", {
      message:
        product.kind === "non_consumable"
          ? `A non-consumable product is bought one at a time; this receipt names ${verified.quantity}.`
          : `A store receipt grants at most ${maxQuantity} units of a product; this one names ${verified.quantity}.`,
      details: { store: body.store, quantity: verified.quantity, max: maxQuantity, kind: product.kind },
    });
  return { verified, product };
}

function productOrThrow(product: StoreProductDef | undefined): StoreProductDef {
  if (!product) throw new AppError("RECEIPT_WRONG_PRODUCT", { message: "The store product was deleted." });
  return product;
}

/** A Steam order already granted: grantOnce finds its row and replays it. */
function replayMarker(order: Row): VerifiedPurchase {
  return {
    store: "steam",
    transactionId: order.store_transaction_id,
    originalTransactionId: null,
    productId: order.store_product_id ?? "",
    quantity: order.quantity,
    environment: order.environment ?? "production",
    purchasedAt: new Date(),
    priceMicros: null,
    currency: null,
    evidence: {},
  };
}

async function rowBy(
  projectId: string,
  store: StoreName,
  by: { tokenSha: string } | { storeTransactionId: string },
): Promise<Row | undefined> {
  const [column, value] = "tokenSha" in by ? ["purchase_token_sha256", by.tokenSha] : ["store_transaction_id", by.storeTransactionId];
  const { rows } = await pool().query<Row>(
    `SELECT id, store, player_id, status, store_transaction_id, product_id, store_product_id, quantity, environment, ledger_transaction_id,
            store_finished, evidence
       FROM store_transactions WHERE project_id = $1 AND store = $2 AND ${column} = $3 AND status <> 'rejected' LIMIT 1`,
    [projectId, store, value],
  );
  return rows[0];
}

/**
 * One grant per production purchase per instance: the same store app (bundle id, package name,
 * Steam app) set up in two projects — a copy of the game's project, a second tenant claiming the
 * app — would otherwise grant one real purchase in each. Serialized across projects on an
 * instance-wide lock of the store transaction (taken after the project's own, always in that
 * order), so two projects receiving the receipt at once grant it once. Sandbox purchases move no
 * money and stay per project (a staging project may test with the same sandbox account).
 */
async function assertNotGrantedElsewhere(client: pg.PoolClient, projectId: string, v: VerifiedPurchase): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`store-instance:${v.store}:${v.transactionId}`]);
  const { rowCount } = await client.query(
    `SELECT 1 FROM store_transactions
      WHERE store = $1 AND store_transaction_id = $2 AND environment = 'production' AND status <> 'rejected' AND project_id <> $3 LIMIT 1`,
    [v.store, v.transactionId, projectId],
  );
  if (rowCount)
    throw new AppError("RECEIPT_ALREADY_USED", {
      message:
        "This purchase was already granted in another project on this server: a store app set up in two projects grants each real purchase once.",
      details: { store: v.store, transactionId: v.transactionId, scope: "instance" },
    });
}

async function grantOnce(o: {
  actor: PlayerActor;
  verified: VerifiedPurchase;
  product: StoreProductDef;
  tokenSha: string | null;
  requestId?: string;
}): Promise<{ answer: ReceiptResult; receiptId: string; finished: boolean }> {
  const { projectId, playerId } = o.actor;
  const v = o.verified;
  const price = v.priceMicros ?? (o.product.priceMicros === null ? null : o.product.priceMicros * v.quantity);
  const currency = v.priceMicros !== null ? v.currency : o.product.priceCurrency;
  return transaction(async (client) => {
    // A refund the store reported before this receipt: refused, nothing granted (refunds.ts).
    await lockStoreTransaction(client, { projectId, store: v.store, transactionId: v.transactionId });
    const held = await heldReversal(client, { projectId, store: v.store, transactionId: v.transactionId });
    if (held)
      throw new AppError("RECEIPT_CANCELLED", {
        message: `The store refunded or revoked this purchase before its receipt arrived (${held.reason}); nothing was granted.`,
        details: { store: v.store, transactionId: v.transactionId, reason: held.reason, reversedAt: held.reversedAt.toISOString() },
      });
    if (v.environment === "production") await assertNotGrantedElsewhere(client, projectId, v);
    const claimed = await client.query<{ id: string }>(
      `INSERT INTO store_transactions (id, project_id, store, store_transaction_id, original_transaction_id, store_product_id, product_id,
              player_id, status, environment, quantity, price_micros, currency, purchased_at, evidence, purchase_token_sha256)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'granted', $9, $10, $11, $12, $13, $14::jsonb, $15)
       ON CONFLICT (project_id, store, store_transaction_id) WHERE status <> 'rejected'
       DO UPDATE SET status = 'granted', environment = EXCLUDED.environment, quantity = EXCLUDED.quantity,
              price_micros = EXCLUDED.price_micros, currency = EXCLUDED.currency, purchased_at = EXCLUDED.purchased_at,
              evidence = EXCLUDED.evidence, updated_at = now()
        WHERE store_transactions.status = 'pending' AND store_transactions.player_id = EXCLUDED.player_id
       RETURNING id`,
      [
        uuidv7(),
        projectId,
        v.store,
        v.transactionId,
        v.originalTransactionId,
        v.productId,
        o.product.id,
        playerId,
        v.environment,
        v.quantity,
        price === null ? null : String(price),
        currency,
        v.purchasedAt,
        JSON.stringify(v.evidence),
        o.tokenSha,
      ],
    );
    const receiptId = claimed.rows[0]?.id;
    if (!receiptId) {
      const existing = await rowBy(projectId, v.store, { storeTransactionId: v.transactionId });
      if (!existing) throw new Error("a store transaction conflicted and then vanished");
      return { answer: await replayOf(o.actor, existing), receiptId: existing.id, finished: existing.store_finished };
    }
    return withEvents(projectId, async (emitting) => {
      const applied = await applyStoreChange({
        actor: o.actor,
        playerId,
        kind: "store_purchase",
        lines: o.product.rewards,
        quantity: v.quantity,
        productId: o.product.id,
        context: { requestId: o.requestId, reason: `${v.store} ${v.transactionId}` },
      });
      await client.query("UPDATE store_transactions SET ledger_transaction_id = $2 WHERE id = $1", [receiptId, applied.transactionId]);
      const sale = {
        receiptId,
        store: v.store,
        storeTransactionId: v.transactionId,
        productId: o.product.id,
        quantity: v.quantity,
        environment: v.environment,
      };
      if (emitting) {
        await emitEvent({
          projectId,
          type: "store.purchase_granted",
          playerId,
          data: { playerId, ...sale, priceMicros: price, currency, transactionId: applied.transactionId },
        });
      }
      return {
        receiptId,
        finished: false,
        answer: {
          ...sale,
          status: "granted" as const,
          replayed: false,
          grant: { transactionId: applied.transactionId, balances: applied.balances, inventory: applied.inventory },
        },
      };
    });
  });
}

/** A receipt redeemed before: its first result to its player, RECEIPT_ALREADY_USED to anyone else. */
async function replayOf(actor: PlayerActor, row: Row): Promise<ReceiptResult> {
  if (row.player_id !== actor.playerId) throw new AppError("RECEIPT_ALREADY_USED");
  if (row.status === "pending" || row.status === "rejected" || !row.ledger_transaction_id)
    throw new AppError("RECEIPT_PENDING", { message: "This purchase is being granted; send the receipt again." });
  const { rows } = await pool().query<{
    currencies: Array<{ id: string; balance: number }>;
    items: Array<{ itemId: string; quantity: number }>;
  }>("SELECT currencies, items FROM economy_transactions WHERE id = $1 AND project_id = $2", [row.ledger_transaction_id, actor.projectId]);
  const ledger = rows[0];
  return {
    receiptId: row.id,
    store: row.store,
    storeTransactionId: row.store_transaction_id,
    productId: row.product_id ?? "",
    quantity: row.quantity,
    environment: row.environment ?? "production",
    status: row.status === "refunded" ? "refunded" : "granted",
    replayed: true,
    grant: {
      transactionId: row.ledger_transaction_id,
      balances: (ledger?.currencies ?? []).map((c) => ({ id: c.id, balance: Number(c.balance) })),
      inventory: (ledger?.items ?? []).map((i) => ({ itemId: i.itemId, quantity: Number(i.quantity) })),
    },
  };
}

/** A Google token seen before: replay it, and finish it at Google if that failed the first time. */
async function answerExisting(
  actor: PlayerActor,
  row: Row,
  google: { productId: string; purchaseToken: string } | null,
): Promise<ReceiptResult> {
  const answer = await replayOf(actor, row);
  if (google && !row.store_finished && row.status === "granted") {
    const product = (await economyConfig(actor.projectId)).storeProducts.get(row.product_id ?? "");
    if (product) await finishAtGoogle(actor.projectId, row.id, product, google);
  }
  countStoreReceipt("google", "replayed");
  return answer;
}

/**
 * After the grant has committed: Google wants a consumable consumed (so it can be bought again)
 * and anything else acknowledged, within three days or it refunds the purchase. A failure here
 * does not undo the grant: the token is kept sealed, and the receipt's retry (answerExisting) or the
 * refund poll's sweep (finishGooglePurchases) finishes it.
 */
async function finishAtGoogle(
  projectId: string,
  receiptId: string,
  product: Pick<StoreProductDef, "kind">,
  body: { productId: string; purchaseToken: string },
): Promise<boolean> {
  try {
    const { client } = await googleGateway(projectId);
    if (product.kind === "consumable") await client.consume(body.productId, body.purchaseToken);
    else await client.acknowledge(body.productId, body.purchaseToken);
    await pool().query(
      "UPDATE store_transactions SET store_finished = true, purchase_token_sealed = NULL, updated_at = now() WHERE id = $1",
      [receiptId],
    );
    return true;
  } catch (error) {
    await pool().query("UPDATE store_transactions SET purchase_token_sealed = $2, updated_at = now() WHERE id = $1", [
      receiptId,
      sealStoreSecret(body.purchaseToken),
    ]);
    logger("store").warn(
      { err: error, receiptId },
      "a granted Google Play purchase could not be consumed/acknowledged yet; the receipt's retry or the refund poll will",
    );
    return false;
  }
}

/**
 * The sweep (run with each refund poll of the project): granted Google purchases whose
 * consume/acknowledge failed are finished now, well within Google's three days.
 */
export async function finishGooglePurchases(projectId: string): Promise<{ finished: number }> {
  const { rows } = await pool().query<{ id: string; product_id: string | null; store_product_id: string; purchase_token_sealed: string }>(
    `SELECT id, product_id, store_product_id, purchase_token_sealed FROM store_transactions
      WHERE project_id = $1 AND store = 'google' AND status = 'granted' AND NOT store_finished AND purchase_token_sealed IS NOT NULL
      ORDER BY created_at LIMIT 500`,
    [projectId],
  );
  const config = await economyConfig(projectId);
  let finished = 0;
  for (const row of rows) {
    // A product deleted since: consumed if it was sold as consumable is unknowable, acknowledging is always allowed.
    const product = config.storeProducts.get(row.product_id ?? "") ?? { kind: "non_consumable" as const };
    const body = { productId: row.store_product_id, purchaseToken: openStoreSecret(row.purchase_token_sealed) };
    if (await finishAtGoogle(projectId, row.id, product, body)) finished++;
  }
  return { finished };
}

async function recordRejection(o: {
  projectId: string;
  playerId: string;
  store: StoreName;
  code: string;
  storeTransactionId: string | null;
  body: ReceiptBody;
}): Promise<void> {
  const evidence =
    o.body.store === "google"
      ? { productId: o.body.productId }
      : o.body.store === "steam"
        ? { orderId: o.body.orderId }
        : { signedTransactionBytes: o.body.signedTransaction.length };
  await pool().query(
    `INSERT INTO store_transactions (id, project_id, store, store_transaction_id, store_product_id, player_id, status, refusal, evidence, purchase_token_sha256)
     VALUES ($1, $2, $3, $4, $5, $6, 'rejected', $7, $8::jsonb, $9)`,
    [
      uuidv7(),
      o.projectId,
      o.store,
      o.storeTransactionId ?? (o.body.store === "steam" ? o.body.orderId : null),
      o.body.store === "google" ? o.body.productId : null,
      o.playerId,
      o.code,
      JSON.stringify(evidence),
      o.body.store === "google" ? sha256(o.body.purchaseToken) : null,
    ],
  );
}

// ---- Steam: the order before the overlay ----

/** A random order id Steam accepts (a uint64, here below 2^63), ours: the row is made before Steam is asked. */
const newOrderId = () => (randomBytes(8).readBigUInt64BE() >> 1n || 1n).toString();

export async function startSteamOrder(o: {
  actor: PlayerActor;
  productId: string;
  steamId: string;
  language: string;
  ip?: string;
}): Promise<{ orderId: string; transId: string; steamUrl: string | null }> {
  const { projectId, playerId } = o.actor;
  const product = (await economyConfig(projectId)).storeProducts.get(o.productId);
  if (!product?.steamItemId) throw new AppError("RECEIPT_WRONG_PRODUCT", { message: "No store product with this id is sold on Steam." });
  if (product.priceMicros === null || product.priceCurrency === null)
    throw new AppError("STORE_NOT_CONFIGURED", { message: "The Steam product has no price." });
  const steam = await steamGateway(projectId);
  const orderId = newOrderId();
  const id = uuidv7();
  await pool().query(
    `INSERT INTO store_transactions (id, project_id, store, store_transaction_id, store_product_id, product_id, player_id, status,
            quantity, price_micros, currency, evidence)
     VALUES ($1, $2, 'steam', $3, $4, $5, $6, 'pending', 1, $7, $8, $9::jsonb)`,
    [
      id,
      projectId,
      orderId,
      product.steamItemId,
      product.id,
      playerId,
      String(product.priceMicros),
      product.priceCurrency,
      JSON.stringify({ steamId: o.steamId }),
    ],
  );
  try {
    const started = await steam.initTxn({
      orderId,
      steamId: o.steamId,
      itemId: product.steamItemId,
      quantity: 1,
      amountCents: Math.round(product.priceMicros / 10_000),
      currency: product.priceCurrency,
      description: product.name,
      language: o.language,
      ipAddress: o.ip,
    });
    await pool().query("UPDATE store_transactions SET evidence = evidence || $2::jsonb, updated_at = now() WHERE id = $1", [
      id,
      JSON.stringify({ transId: started.transId }),
    ]);
    return { orderId, ...started };
  } catch (error) {
    // Steam says to abandon an order whose InitTxn failed or went unanswered: it is never used again.
    const code = error instanceof AppError ? error.code : "STORE_UNAVAILABLE";
    await pool().query("UPDATE store_transactions SET status = 'rejected', refusal = $2, updated_at = now() WHERE id = $1", [id, code]);
    if (isRefusal(error)) countStoreReceipt("steam", error.code);
    throw error;
  }
}
