import { timingSafeEqual } from "node:crypto";
import { uuidv7 } from "../../crypto";
import { pool, transaction } from "../../db";
import { env } from "../../env";
import { AppError } from "../../errors";
import { logger } from "../../log";
import { countStoreReceipt } from "../../metrics";
import { parseGooglePlayNotification } from "../../stores/google";
import type { StoreName, StoreReversal } from "../../stores/types";
import { appleGateway, googleGateway, steamGateway } from "./gateways";
import { finishGooglePurchases } from "./receipts";
import { applyReversal, type ReversalOutcome } from "./refunds";
import { notificationTokenHash } from "./settings";

/**
 * What the stores tell us after a sale: App Store Server Notifications V2 (signed by Apple,
 * verified like a transaction), Google's real-time developer notifications (a Pub/Sub push to a
 * URL carrying the project's token), and the refunds we poll (Google's voided purchases, Steam's
 * chargeback report). Each is stored once per store and id, in the transaction that acts on it:
 * a redelivery finds it stored and does nothing; a failure stores nothing, so the store's retry
 * (or the next poll) acts.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function projectOf(projectId: string): Promise<void> {
  if (!UUID.test(projectId)) throw new AppError("NOT_FOUND", { message: "Unknown project." });
}

/** Stores a notification and acts on it once; `act` runs only for a notification seen the first time. */
async function once(
  o: {
    projectId: string;
    store: StoreName;
    notificationId: string;
    type: string;
    subtype: string | null;
    storeTransactionId: string | null;
    evidence: Record<string, unknown>;
  },
  act: () => Promise<string>,
): Promise<{ duplicate: boolean; outcome: string }> {
  return transaction(async (client) => {
    const id = uuidv7();
    const inserted = await client.query(
      `INSERT INTO store_notifications (id, project_id, store, notification_id, type, subtype, store_transaction_id, outcome, evidence)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'received', $8::jsonb)
       ON CONFLICT (project_id, store, notification_id) DO NOTHING`,
      [id, o.projectId, o.store, o.notificationId, o.type, o.subtype, o.storeTransactionId, JSON.stringify(o.evidence)],
    );
    if (!inserted.rowCount) return { duplicate: true, outcome: "duplicate" };
    const outcome = await act();
    await client.query("UPDATE store_notifications SET outcome = $2 WHERE id = $1", [id, outcome]);
    return { duplicate: false, outcome };
  });
}

const SYSTEM = (projectId: string) => ({ kind: "system" as const, projectId });

async function reverse(projectId: string, reversal: StoreReversal | null): Promise<ReversalOutcome | "stored"> {
  if (!reversal) return "stored";
  return (await applyReversal({ projectId, reversal, actor: SYSTEM(projectId) })).outcome;
}

/** POST /api/stores/apple/{projectId}: `{signedPayload}` as App Store Server Notifications V2 send it. */
export async function receiveAppleNotification(projectId: string, body: unknown): Promise<{ duplicate: boolean; outcome: string }> {
  await projectOf(projectId);
  const signedPayload = (body as { signedPayload?: unknown } | null)?.signedPayload;
  if (typeof signedPayload !== "string" || signedPayload.length > 64_000)
    throw new AppError("VALIDATION_ERROR", { message: "Expected {signedPayload} as App Store Server Notifications V2 send it." });
  const verifier = await appleGateway(projectId).catch((error: unknown) => {
    // An unknown project or one without App Store settings: nothing to verify against.
    if (error instanceof AppError && error.code === "STORE_NOT_CONFIGURED")
      throw new AppError("NOT_FOUND", { message: "Unknown project." });
    throw error;
  });
  let notification: Awaited<ReturnType<typeof verifier.verifyNotification>>;
  try {
    notification = await verifier.verifyNotification(signedPayload);
  } catch (error) {
    if (error instanceof AppError) countStoreReceipt("apple", `notification_${error.code}`);
    throw error;
  }
  const result = await once(
    {
      projectId,
      store: "apple",
      notificationId: notification.notificationId,
      type: notification.type,
      subtype: notification.subtype,
      storeTransactionId: notification.reversal?.transactionId ?? stringOf(notification.evidence.transactionId),
      evidence: { environment: notification.environment, ...notification.evidence },
    },
    () => reverse(projectId, notification.reversal),
  );
  countStoreReceipt("apple", `notification_${result.outcome}`);
  return result;
}

const stringOf = (v: unknown): string | null => (typeof v === "string" ? v : typeof v === "number" ? String(v) : null);

/**
 * POST /api/stores/google/{projectId}?token=…: a Pub/Sub push of a real-time developer
 * notification. The body is not trusted for a refund: a voided purchase makes the project's refund
 * poll due now, and the poll asks Google's Voided Purchases API.
 */
export async function receiveGoogleNotification(projectId: string, token: string | null, body: unknown) {
  await projectOf(projectId);
  const { rows } = await pool().query<{ notification_token_hash: Buffer | null; settings: { packageName?: string } }>(
    "SELECT notification_token_hash, settings FROM store_settings WHERE project_id = $1 AND store = 'google'",
    [projectId],
  );
  const expected = rows[0]?.notification_token_hash;
  if (!expected || !token || !timingSafeEqual(expected, notificationTokenHash(token)))
    throw new AppError("FORBIDDEN", { message: "The notification URL's token is wrong (rotate it on the Store page)." });
  const notification = parseGooglePlayNotification(body);
  if (notification.packageName !== rows[0]?.settings.packageName)
    throw new AppError("RECEIPT_WRONG_APP", { message: "The notification is for another package." });
  const result = await once(
    {
      projectId,
      store: "google",
      notificationId: notification.messageId,
      type: notification.kind,
      subtype: notification.notificationType === null ? null : String(notification.notificationType),
      storeTransactionId: notification.orderId ?? (notification.purchaseTokenSha256 ? `token:${notification.purchaseTokenSha256}` : null),
      evidence: notification.raw,
    },
    async () => {
      if (notification.kind !== "voided") return "stored";
      await pool().query("UPDATE store_settings SET refunds_polled_at = NULL WHERE project_id = $1 AND store = 'google'", [projectId]);
      return "poll_due";
    },
  );
  countStoreReceipt("google", `notification_${result.outcome}`);
  return result;
}

// ---- Polling ----

/** How far back a project's first poll reads: Google keeps voided purchases 30 days. */
const FIRST_POLL_DAYS = 30;

/**
 * One poll of one project's refunds at one store: every reversal since the last poll's cursor,
 * each applied once (stored as a notification `voided:<id>` / `chargeback:<id>`), then the cursor
 * moves. A failure leaves the cursor: the next poll reads the same reversals again, harmlessly.
 */
export async function pollRefunds(projectId: string, store: "google" | "steam", now = new Date()): Promise<{ applied: number }> {
  const { rows } = await pool().query<{ refunds_polled_until: Date | null }>(
    "SELECT refunds_polled_until FROM store_settings WHERE project_id = $1 AND store = $2",
    [projectId, store],
  );
  const since = rows[0]?.refunds_polled_until ?? new Date(now.getTime() - FIRST_POLL_DAYS * 86_400_000);
  let applied = 0;
  let until = since;
  const apply = async (reversal: StoreReversal) => {
    const result = await once(
      {
        projectId,
        store,
        notificationId: `${store === "google" ? "voided" : "chargeback"}:${reversal.transactionId}`,
        type: store === "google" ? "VOIDED_PURCHASE" : "CHARGEBACK_REPORT",
        subtype: null,
        storeTransactionId: reversal.transactionId,
        evidence: { reason: reversal.reason, at: reversal.at.toISOString(), ...reversal.evidence },
      },
      () => reverse(projectId, reversal),
    );
    if (!result.duplicate) applied++;
    if (reversal.at > until) until = reversal.at;
  };
  if (store === "google") {
    await finishGooglePurchases(projectId);
    const { client } = await googleGateway(projectId);
    let pageToken: string | undefined;
    do {
      const page = await client.voidedPurchases({ startTime: since, pageToken });
      for (const reversal of page.reversals) await apply(reversal);
      pageToken = page.nextPageToken ?? undefined;
    } while (pageToken);
  } else {
    const steam = await steamGateway(projectId);
    let time: Date | null = since;
    // Steam's report repeats the row at its boundary time: stored notifications make that harmless.
    for (let page = 0; time && page < 100; page++) {
      const batch: Awaited<ReturnType<typeof steam.refundsSince>> = await steam.refundsSince({ time });
      for (const reversal of batch.reversals) await apply(reversal);
      if (!batch.nextTime || batch.nextTime.getTime() === time.getTime()) break;
      time = batch.nextTime;
    }
  }
  await pool().query("UPDATE store_settings SET refunds_polled_until = $3, refunds_polled_at = $4 WHERE project_id = $1 AND store = $2", [
    projectId,
    store,
    until,
    now,
  ]);
  return { applied };
}

/** The minute job: every project whose poll is due (never polled, a notification asked, or older than the setting). */
export async function pollDueRefunds(now = new Date()): Promise<void> {
  const minutes = env().STORE_REFUND_POLL_MINUTES;
  if (minutes === 0) return;
  const { rows } = await pool().query<{ project_id: string; store: "google" | "steam" }>(
    `SELECT project_id, store FROM store_settings
      WHERE store IN ('google', 'steam') AND secret IS NOT NULL
        AND (refunds_polled_at IS NULL OR refunds_polled_at < $1::timestamptz - make_interval(mins => $2))
      ORDER BY refunds_polled_at NULLS FIRST LIMIT 100`,
    [now, minutes],
  );
  for (const row of rows) {
    try {
      const { applied } = await pollRefunds(row.project_id, row.store, now);
      if (applied > 0) logger("store").info({ projectId: row.project_id, store: row.store, applied }, `applied ${applied} store refunds`);
    } catch (error) {
      // One project's store being down or its credential wrong must not stop the others.
      await pool().query("UPDATE store_settings SET refunds_polled_at = $3 WHERE project_id = $1 AND store = $2", [
        row.project_id,
        row.store,
        now,
      ]);
      logger("store").warn(
        { err: error, projectId: row.project_id, store: row.store },
        "store refund poll failed; retried at the next interval",
      );
    }
  }
}
