import { readFileSync } from "node:fs";
import { inject } from "vitest";
import type { SessionOperator } from "@/server/identity/operator";
import { createCurrency, createItem } from "@/server/services/economy/definitions";
import { createStoreProduct } from "@/server/services/store/products";
import type { StoreProductInput } from "@/server/services/store/schemas";
import { setStoreSettingsAs } from "@/server/services/store/settings";
import {
  type ApplePki,
  type ApplePkiMaterial,
  applePkiFrom,
  notificationPayload,
  TEST_APPLE_APP,
  transactionPayload,
} from "./apple-test-pki";
import { makeProject, type TestProject } from "./fixtures";
import { ctx, newOperator } from "./operators";

/**
 * Store receipts in the integration suite: the suite-wide Apple PKI the app trusts (made by the
 * global setup), and a project's store account and products set up as an operator would.
 */
let shared: ApplePki | undefined;
export function sharedApplePki(): ApplePki {
  shared ??= applePkiFrom(JSON.parse(readFileSync(inject("applePkiFile"), "utf8")) as ApplePkiMaterial);
  return shared;
}

/** A signed StoreKit 2 transaction of the test app, as the game would send it. */
export function appleReceipt(overrides: Parameters<typeof transactionPayload>[0] = {}): {
  body: { store: "apple"; signedTransaction: string };
  transactionId: string;
  payload: ReturnType<typeof transactionPayload>;
} {
  const payload = transactionPayload(overrides);
  return {
    body: { store: "apple", signedTransaction: sharedApplePki().signTransaction(payload) },
    transactionId: String(payload.transactionId),
    payload,
  };
}

/**
 * An App Store Server Notification V2 body (`{signedPayload}`) about a transaction: REFUND by
 * default (the transaction revoked now, reason 1), REFUND_REVERSED, REVOKE, TEST….
 */
export function appleNotification(
  transaction: ReturnType<typeof transactionPayload>,
  type = "REFUND",
  overrides: Parameters<typeof notificationPayload>[0] = {},
): { body: { signedPayload: string }; notificationId: string } {
  const revoked = type === "REFUND" || type === "REVOKE" ? { revocationDate: Date.now(), revocationReason: 1 } : {};
  const signedTransactionInfo = sharedApplePki().signTransaction({ ...transaction, ...revoked, signedDate: Date.now() });
  const payload = notificationPayload({ notificationType: type, ...overrides, data: { signedTransactionInfo, ...overrides.data } });
  return { body: { signedPayload: sharedApplePki().signNotification(payload) }, notificationId: String(payload.notificationUUID) };
}

export { TEST_APPLE_APP };

/** The demo-like store catalog the receipts tests use: gems for Apple/Google/Steam, a non-consumable "vip" pass. */
export const TEST_STORE_PRODUCTS: StoreProductInput[] = [
  {
    id: "gems-500",
    name: "500 gems",
    rewards: [{ currencyId: "gems", amount: 500 }],
    appleProductId: "com.example.game.gems500",
    googleProductId: "gems_500",
    steamItemId: "1001",
    priceMicros: 4_990_000,
    priceCurrency: "USD",
  },
  {
    id: "vip",
    name: "VIP pass",
    kind: "non_consumable",
    rewards: [{ itemId: "vip-pass", quantity: 1 }],
    appleProductId: "com.example.game.vip",
    googleProductId: "vip_pass",
  },
];

type Owner = Parameters<typeof ctx>[0];

/** A project with what the test products grant (a `gems` currency, a `vip-pass` item), and its owner. */
export async function storeTestProject(): Promise<{ project: TestProject; owner: SessionOperator }> {
  const project = await makeProject();
  await createCurrency({ projectId: project.projectId, input: { id: "gems", name: "Gems" } });
  await createItem({ projectId: project.projectId, input: { id: "vip-pass", name: "VIP pass" } });
  return { project, owner: await newOperator("OWNER", project.projectId) };
}

export async function addTestStoreProducts(projectId: string): Promise<void> {
  for (const product of TEST_STORE_PRODUCTS) await createStoreProduct({ projectId, input: product });
}

/**
 * Sets up a project to sell the test products on the App Store (the test app, production and
 * sandbox accepted) as its owner would; the project needs a `gems` currency and a `vip-pass` item.
 */
export async function sellOnAppleAs(projectId: string, owner: Owner): Promise<void> {
  await setStoreSettingsAs(ctx(owner), {
    projectId,
    input: { store: "apple", settings: { bundleId: TEST_APPLE_APP.bundleId, appAppleId: TEST_APPLE_APP.appAppleId, environments: "both" } },
  });
  await addTestStoreProducts(projectId);
}

/** The project's Google Play account: the test package, both environments, a fake's service account. */
export async function sellOnGoogleAs(
  projectId: string,
  owner: Owner,
  account: { client_email: string; private_key: string },
  packageName = "com.example.game",
): Promise<void> {
  await setStoreSettingsAs(ctx(owner), {
    projectId,
    input: {
      store: "google",
      settings: { packageName, environments: "both" },
      secret: { client_email: account.client_email, private_key: account.private_key },
    },
  });
}

/** The project's Steam account (not the sandbox interface) with a fake's publisher key. */
export async function sellOnSteamAs(projectId: string, owner: Owner, steam: { appId: string; publisherKey: string }): Promise<void> {
  await setStoreSettingsAs(ctx(owner), {
    projectId,
    input: { store: "steam", settings: { appId: steam.appId, sandbox: false }, secret: { publisherKey: steam.publisherKey } },
  });
}
