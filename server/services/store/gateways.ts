import { readFileSync } from "node:fs";
import { env } from "../../env";
import { AppError } from "../../errors";
import { appleVerifier } from "../../stores/apple";
import { googlePlay } from "../../stores/google";
import { steamMicroTxn } from "../../stores/steam";
import type { StoreEnvironment } from "../../stores/types";
import { storeAccount } from "./settings";

/**
 * The store adapters (server/stores) made from a project's store account and the instance's
 * settings (STORE_* in server/env-schema.mjs). Made per call: an account's settings can change at
 * any time, and making one costs nothing next to the store's round trip.
 */
const environmentsOf = (setting: "production" | "sandbox" | "both"): StoreEnvironment[] =>
  setting === "both" ? ["production", "sandbox"] : [setting];

let roots: { from: string | undefined; certificates: Buffer[] | undefined } | undefined;
function appleRoots(): Buffer[] | undefined {
  const setting = env().STORE_APPLE_ROOT_CERTIFICATES;
  if (roots?.from !== setting) {
    roots = { from: setting, certificates: setting?.split(",").map((path) => derOf(readFileSync(path.trim()))) };
  }
  return roots?.certificates;
}
function derOf(file: Buffer): Buffer {
  const text = file.toString("latin1");
  if (!text.includes("-----BEGIN CERTIFICATE-----")) return file;
  return Buffer.from(text.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, ""), "base64");
}

export async function appleGateway(projectId: string) {
  const account = await storeAccount(projectId, "apple");
  return appleVerifier({
    bundleId: account.bundleId,
    appAppleId: account.appAppleId ?? undefined,
    environments: environmentsOf(account.environments),
    roots: appleRoots(),
    onlineChecks: env().STORE_APPLE_ONLINE_CHECKS,
  });
}

const googleClients = new Map<string, { key: string; client: ReturnType<typeof googlePlay> }>();

export async function googleGateway(projectId: string) {
  const account = await storeAccount(projectId, "google");
  if (!account.secret)
    throw new AppError("STORE_NOT_CONFIGURED", { message: "Enter the Google Play service account first.", details: { store: "google" } });
  // Kept per project while its account is unchanged: the client caches its OAuth access token (an hour).
  const key = JSON.stringify([account, env().STORE_GOOGLE_API_URL, env().STORE_GOOGLE_TOKEN_URL]);
  const hit = googleClients.get(projectId);
  if (hit?.key === key) return { client: hit.client, environments: environmentsOf(account.environments) };
  const client = googlePlay({
    packageName: account.packageName,
    serviceAccount: account.secret,
    apiUrl: env().STORE_GOOGLE_API_URL,
    tokenUrl: env().STORE_GOOGLE_TOKEN_URL,
    timeoutMs: env().STORE_TIMEOUT_MS,
    retries: env().STORE_RETRIES,
  });
  if (googleClients.size > 1_000) googleClients.clear();
  googleClients.set(projectId, { key, client });
  return { client, environments: environmentsOf(account.environments) };
}

export async function steamGateway(projectId: string) {
  const account = await storeAccount(projectId, "steam");
  if (!account.secret)
    throw new AppError("STORE_NOT_CONFIGURED", { message: "Enter the Steam publisher key first.", details: { store: "steam" } });
  return steamMicroTxn({
    appId: account.appId,
    apiKey: account.secret.publisherKey,
    sandbox: account.sandbox,
    apiUrl: env().STORE_STEAM_API_URL,
    timeoutMs: env().STORE_TIMEOUT_MS,
    retries: env().STORE_RETRIES,
  });
}
