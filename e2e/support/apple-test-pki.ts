import type { JWSTransactionDecodedPayload, ResponseBodyV2DecodedPayload } from "@apple/app-store-server-library";
import * as pki from "./apple-pki.mjs";

/**
 * The suite's stand-in for Apple's signing PKI, typed with @apple/app-store-server-library's
 * payloads. The making and the signing are e2e/support/apple-pki.mjs (plain JavaScript, shared
 * with `npm run stores:local`); see there for the chain's shape and the sources.
 */
export type ApplePki = {
  rootDer: Buffer;
  /** A JWSTransaction as the App Store signs it. */
  signTransaction(payload: JWSTransactionDecodedPayload): string;
  /** A notification's signedPayload as the App Store signs it. */
  signNotification(payload: ResponseBodyV2DecodedPayload): string;
};

/**
 * What a PKI signs with, as JSON: the global setup makes one PKI for the whole suite, gives the
 * app its root (STORE_APPLE_ROOT_CERTIFICATES) and writes this to a file every test worker reads
 * (`sharedApplePki()` in e2e/support/stores.ts).
 */
export type ApplePkiMaterial = pki.ApplePkiMaterial;

/** The app the builders' payloads belong to; give the verifier these to accept them. */
export const TEST_APPLE_APP = pki.TEST_APPLE_APP;

/**
 * Makes a PKI with the openssl CLI (the keys live on in memory only). `leafExpired`: the leaf's
 * notAfter is a day before now. `wrongLeafOid`: the leaf lacks Apple's receipt-signing marker.
 * `ocspUrl`: the OCSP responder the leaf and the intermediate name.
 */
export function makeApplePki(
  o: { leafExpired?: boolean; wrongLeafOid?: boolean; ocspUrl?: string } = {},
): ApplePki & { material: ApplePkiMaterial } {
  return pki.makeApplePki(o);
}

export function applePkiFrom(material: ApplePkiMaterial): ApplePki & { material: ApplePkiMaterial } {
  return pki.applePkiFrom(material);
}

/** A consumable of the test app bought in production now, a new transactionId each call (apple-pki.mjs). */
export function transactionPayload(overrides: Partial<JWSTransactionDecodedPayload> = {}): JWSTransactionDecodedPayload {
  return pki.transactionPayload(overrides) as JWSTransactionDecodedPayload;
}

/**
 * An App Store Server Notification V2 payload for the test app in production, TEST by default;
 * `data` in the overrides is merged into the default data (apple-pki.mjs).
 */
export function notificationPayload(overrides: Partial<ResponseBodyV2DecodedPayload> = {}): ResponseBodyV2DecodedPayload {
  return pki.notificationPayload(overrides as Parameters<typeof pki.notificationPayload>[0]) as ResponseBodyV2DecodedPayload;
}
