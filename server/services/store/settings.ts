import { createHash, randomBytes } from "node:crypto";
import { pool } from "../../db";
import { env } from "../../env";
import { AppError } from "../../errors";
import { openSecret, sealSecret } from "../../secret-box";
import { type OperatorContext, runCommand, viewerRead } from "../command";
import type { RefundPolicy, Store, StoreSettingsInput } from "./schemas";

/**
 * A project's accounts with the stores. The settings (bundle id, package name, app id,
 * environments) are plain; the credential is sealed (server/secret-box.ts) and never read back:
 * operators see a hint (the key id, the service account's address, the last four characters) and
 * when it was set. Every change is audited without the secret.
 */
const PURPOSE = "game-backend store credential v1";
/** Store secrets kept for a while (a Google purchase token until its acknowledgement), sealed like credentials. */
export const sealStoreSecret = (secret: string): string => sealSecret(PURPOSE, secret);
export const openStoreSecret = (stored: string): string => openSecret(PURPOSE, stored);

export type AppleAccount = {
  bundleId: string;
  appAppleId: number | null;
  environments: "production" | "sandbox" | "both";
  secret: { keyId: string; issuerId: string; privateKey: string } | null;
};
export type GoogleAccount = {
  packageName: string;
  environments: "production" | "sandbox" | "both";
  secret: { client_email: string; private_key: string } | null;
};
export type SteamAccount = { appId: string; sandbox: boolean; secret: { publisherKey: string } | null };
type Accounts = { apple: AppleAccount; google: GoogleAccount; steam: SteamAccount };

/** The store's settings with the credential opened, for the adapters; STORE_NOT_CONFIGURED without one. */
export async function storeAccount<S extends Store>(projectId: string, store: S): Promise<Accounts[S]> {
  const { rows } = await pool().query<{ settings: Record<string, unknown>; secret: string | null }>({
    name: "store-account",
    text: "SELECT settings, secret FROM store_settings WHERE project_id = $1 AND store = $2",
    values: [projectId, store],
  });
  const row = rows[0];
  if (!row) throw new AppError("STORE_NOT_CONFIGURED", { details: { store } });
  let secret: unknown = null;
  if (row.secret) {
    try {
      secret = JSON.parse(openSecret(PURPOSE, row.secret));
    } catch {
      // JWT_SECRET changed since the credential was entered: it must be entered again.
      throw new AppError("STORE_NOT_CONFIGURED", { message: "The store credential must be entered again.", details: { store } });
    }
  }
  return { ...row.settings, secret } as Accounts[S];
}

function hintOf(input: StoreSettingsInput): string | null {
  if (!input.secret) return null;
  if (input.store === "apple") return `key ${input.secret.keyId}, issuer ${input.secret.issuerId}`;
  if (input.store === "google") return input.secret.client_email;
  return `••••${input.secret.publisherKey.slice(-4)}`;
}

export type StoreSettingsDto = {
  store: Store;
  configured: boolean;
  settings: Record<string, unknown> | null;
  secretHint: string | null;
  secretUpdatedAt: string | null;
  /** Where the store sends its notifications (Apple: App Store Server Notifications V2). Google's carries a token shown once. */
  notificationUrl: string | null;
  notificationTokenSet: boolean;
};

const base = () => env().PUBLIC_URL ?? `http://localhost:${env().PORT}`;

export async function listStoreSettings(o: { projectId: string }): Promise<{ stores: StoreSettingsDto[]; refundPolicy: RefundPolicy }> {
  const { rows } = await pool().query<{
    store: Store;
    settings: Record<string, unknown>;
    secret_hint: string | null;
    secret_updated_at: Date | null;
    token_set: boolean;
  }>(
    `SELECT store, settings, secret_hint, secret_updated_at, notification_token_hash IS NOT NULL AS token_set
       FROM store_settings WHERE project_id = $1`,
    [o.projectId],
  );
  const policy = await pool().query<{ refund_policy: RefundPolicy }>("SELECT refund_policy FROM projects WHERE id = $1", [o.projectId]);
  const stores = (["apple", "google", "steam"] as const).map((store): StoreSettingsDto => {
    const row = rows.find((r) => r.store === store);
    return {
      store,
      configured: row !== undefined,
      settings: row?.settings ?? null,
      secretHint: row?.secret_hint ?? null,
      secretUpdatedAt: row?.secret_updated_at?.toISOString() ?? null,
      notificationUrl: store === "steam" ? null : `${base()}/api/stores/${store}/${o.projectId}`,
      notificationTokenSet: row?.token_set ?? false,
    };
  });
  return { stores, refundPolicy: policy.rows[0]?.refund_policy ?? "clamp" };
}

export const listStoreSettingsAs = viewerRead(listStoreSettings);

async function settingsOf(projectId: string, store: Store) {
  const { stores } = await listStoreSettings({ projectId });
  return stores.find((s) => s.store === store) ?? null;
}

/** Sets a store's settings; the credential too when given (kept as it was when not). */
export function setStoreSettingsAs(ctx: OperatorContext, o: { projectId: string; input: StoreSettingsInput }) {
  const { store } = o.input;
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: o.input.secret ? "store.settings.credential" : "store.settings.update",
    target: store,
    before: () => settingsOf(o.projectId, store),
    run: async () => {
      const sealed = o.input.secret ? sealSecret(PURPOSE, JSON.stringify(o.input.secret)) : null;
      await pool().query(
        `INSERT INTO store_settings (project_id, store, settings, secret, secret_hint, secret_updated_at)
         VALUES ($1, $2, $3::jsonb, $4, $5, CASE WHEN $4::text IS NULL THEN NULL ELSE now() END)
         ON CONFLICT (project_id, store) DO UPDATE SET settings = EXCLUDED.settings,
           secret = COALESCE(EXCLUDED.secret, store_settings.secret),
           secret_hint = COALESCE(EXCLUDED.secret_hint, store_settings.secret_hint),
           secret_updated_at = COALESCE(EXCLUDED.secret_updated_at, store_settings.secret_updated_at),
           updated_at = now()`,
        [o.projectId, store, JSON.stringify(o.input.settings), sealed, hintOf(o.input)],
      );
      return settingsOf(o.projectId, store);
    },
    after: (saved) => saved,
  });
}

/** Forgets a store's account (settings and credential); its sales stay. */
export function removeStoreSettingsAs(ctx: OperatorContext, o: { projectId: string; store: Store }) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "store.settings.remove",
    target: o.store,
    before: () => settingsOf(o.projectId, o.store),
    run: async () => {
      await pool().query("DELETE FROM store_settings WHERE project_id = $1 AND store = $2", [o.projectId, o.store]);
      return { removed: true as const };
    },
  });
}

/**
 * A new secret for Google's notification URL (Pub/Sub push cannot sign its requests in a way we
 * can check offline, so the URL carries a token): shown once, stored as its SHA-256.
 */
export function rotateNotificationTokenAs(ctx: OperatorContext, o: { projectId: string; store: "google" }) {
  const token = randomBytes(24).toString("base64url");
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "store.settings.notification_token",
    target: o.store,
    run: async () => {
      const { rowCount } = await pool().query(
        "UPDATE store_settings SET notification_token_hash = $3, updated_at = now() WHERE project_id = $1 AND store = $2",
        [o.projectId, o.store, notificationTokenHash(token)],
      );
      if (!rowCount) throw new AppError("STORE_NOT_CONFIGURED", { details: { store: o.store } });
      return { notificationUrl: `${base()}/api/stores/${o.store}/${o.projectId}?token=${token}` };
    },
    after: () => ({ rotated: true }),
  });
}

export const notificationTokenHash = (token: string): Buffer => createHash("sha256").update(token).digest();

export function setRefundPolicyAs(ctx: OperatorContext, o: { projectId: string; policy: RefundPolicy }) {
  return runCommand(ctx, {
    projectId: o.projectId,
    minimum: "ADMIN",
    action: "store.refund_policy",
    target: o.projectId,
    before: async () => (await listStoreSettings({ projectId: o.projectId })).refundPolicy,
    run: async () => {
      await pool().query("UPDATE projects SET refund_policy = $2 WHERE id = $1", [o.projectId, o.policy]);
      return { refundPolicy: o.policy };
    },
    after: (r) => r,
  });
}
