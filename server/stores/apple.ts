import { X509Certificate } from "node:crypto";
import {
  Environment,
  type JWSTransactionDecodedPayload,
  type ResponseBodyV2DecodedPayload,
  SignedDataVerifier,
  VerificationException,
  VerificationStatus,
} from "@apple/app-store-server-library";
import { AppError } from "@/server/errors";
import { appleRootCaG3Der } from "./apple-root-ca-g3";
import type { StoreEnvironment, StoreReversal, VerifiedPurchase } from "./types";

/**
 * The App Store adapter. Apple signs every transaction and server notification as a JWS whose
 * x5c chain ends at Apple Root CA - G3, so verification is offline: Apple's own library
 * (SignedDataVerifier) checks the chain, Apple's marker extensions, the signature, the bundle id
 * and the environment; this module turns its verdicts into our refusal codes and its payloads
 * into VerifiedPurchase / AppleNotification.
 *
 * Payloads: JWSTransactionDecodedPayload
 * (https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload) and
 * ResponseBodyV2DecodedPayload
 * (https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload).
 */
export type AppleVerifierOptions = {
  bundleId: string;
  /** The app's Apple ID. Apple's library requires it for production (notifications carry it). */
  appAppleId?: number;
  /** Which of Apple's environments the project accepts. */
  environments: StoreEnvironment[];
  /** Trusted roots, DER. Default: Apple Root CA - G3. Tests pass their own. */
  roots?: Buffer[];
  /**
   * OCSP revocation checks of the chain and certificate dates checked against now instead of the
   * signing date. Off by default: OCSP needs Apple's servers over the internet.
   */
  onlineChecks?: boolean;
};

export type AppleNotification = {
  /** Apple's notificationUUID: the same notification retried by Apple has the same id. */
  notificationId: string;
  /** notificationType, e.g. REFUND, TEST. */
  type: string;
  subtype: string | null;
  environment: StoreEnvironment;
  /** REFUND and REVOKE take a purchase back, REFUND_REVERSED gives it back; null for every other type. */
  reversal: StoreReversal | null;
  evidence: Record<string, unknown>;
};

export type AppleVerifier = {
  verifyTransaction(signedTransaction: string): Promise<VerifiedPurchase>;
  verifyNotification(signedPayload: string): Promise<AppleNotification>;
};

const APPLE_ENVIRONMENT: Record<StoreEnvironment, Environment> = {
  production: Environment.PRODUCTION,
  sandbox: Environment.SANDBOX,
};

/** Apple's certificate date checks allow this much clock skew (MAX_SKEW in jws_verification.js). */
const MAX_SKEW_MS = 60_000;

/**
 * Words for revocationReason (https://developer.apple.com/documentation/appstoreserverapi/revocationreason):
 * 1 the customer reported an issue with the app, 0 any other reason (an accidental purchase, or for
 * Family Sharing the customer leaving the family or the owner no longer sharing).
 */
const REVOCATION_REASONS: Record<number, string> = {
  0: "refunded for another reason",
  1: "refunded for an issue in the app",
};

/**
 * REVOKE's revocationReason is 0 both when the family member lost access and when the purchaser
 * was refunded, so words from it would mislead; the number stays in the evidence.
 */
const REASON_BY_TYPE: Record<string, string> = {
  REVOKE: "revoked from Family Sharing",
};

export function appleVerifier(o: AppleVerifierOptions): AppleVerifier {
  const accepted = [...new Set(o.environments)];
  const first = accepted[0];
  if (first === undefined) {
    throw new AppError("STORE_NOT_CONFIGURED", { message: "No App Store environment is accepted for this project." });
  }
  if (accepted.includes("production") && o.appAppleId === undefined) {
    throw new AppError("STORE_NOT_CONFIGURED", { message: "The App Store production environment needs the app's Apple ID." });
  }
  const roots = o.roots ?? [appleRootCaG3Der()];
  const onlineChecks = o.onlineChecks ?? false;
  const verifierFor = (env: StoreEnvironment) =>
    new SignedDataVerifier(roots, onlineChecks, APPLE_ENVIRONMENT[env], o.bundleId, o.appAppleId);
  const verifiers = new Map(accepted.map((env) => [env, verifierFor(env)]));
  const fallback: [StoreEnvironment, SignedDataVerifier] = [first, verifierFor(first)];

  /**
   * The verifier for the environment the (not yet verified) payload claims. A claim we do not
   * accept still goes through a verifier, which checks the signature and the bundle before it
   * refuses the environment: a forgery is RECEIPT_INVALID, a genuine sandbox receipt sent to a
   * production-only project is RECEIPT_WRONG_ENVIRONMENT.
   */
  const pick = (claimed: StoreEnvironment | null): [StoreEnvironment, SignedDataVerifier] => {
    const verifier = claimed === null ? undefined : verifiers.get(claimed);
    return claimed !== null && verifier !== undefined ? [claimed, verifier] : fallback;
  };

  const refusal = (error: unknown, jws: string): unknown => {
    if (!(error instanceof VerificationException)) return error;
    switch (error.status) {
      case VerificationStatus.INVALID_APP_IDENTIFIER:
        return new AppError("RECEIPT_WRONG_APP", { cause: error });
      case VerificationStatus.INVALID_ENVIRONMENT:
        return new AppError("RECEIPT_WRONG_ENVIRONMENT", { cause: error });
      case VerificationStatus.RETRYABLE_VERIFICATION_FAILURE:
        return new AppError("STORE_UNAVAILABLE", { cause: error });
      case VerificationStatus.INVALID_CERTIFICATE:
        return new AppError(signedWithExpiredCertificate(error, jws, onlineChecks) ? "RECEIPT_EXPIRED" : "RECEIPT_INVALID", {
          cause: error,
        });
      default:
        return new AppError("RECEIPT_INVALID", { cause: error });
    }
  };

  const decodeTransaction = async (signed: string, verifier: SignedDataVerifier): Promise<JWSTransactionDecodedPayload> => {
    try {
      return await verifier.verifyAndDecodeTransaction(signed);
    } catch (error) {
      throw refusal(error, signed);
    }
  };

  return {
    async verifyTransaction(signedTransaction) {
      const [environment, verifier] = pick(transactionEnvironment(peekPayload(signedTransaction)));
      const transaction = await decodeTransaction(signedTransaction, verifier);
      if (transaction.revocationDate !== undefined) {
        throw new AppError("RECEIPT_CANCELLED", {
          details: compact({ revocationDate: isoDate(transaction.revocationDate), revocationReason: transaction.revocationReason }),
        });
      }
      return toPurchase(transaction, environment);
    },

    async verifyNotification(signedPayload) {
      const [environment, verifier] = pick(notificationEnvironment(peekPayload(signedPayload)));
      let notification: ResponseBodyV2DecodedPayload;
      try {
        notification = await verifier.verifyAndDecodeNotification(signedPayload);
      } catch (error) {
        throw refusal(error, signedPayload);
      }
      const { notificationUUID, notificationType } = notification;
      if (!notificationUUID || !notificationType) {
        throw new AppError("RECEIPT_INVALID", { message: "The App Store notification lacks its id or type." });
      }
      // The transaction inside is a JWS of its own, verified like one the client sends.
      const signedTransaction = notification.data?.signedTransactionInfo;
      const transaction = signedTransaction ? await decodeTransaction(signedTransaction, verifier) : null;
      return {
        notificationId: notificationUUID,
        type: notificationType,
        subtype: notification.subtype ?? null,
        environment,
        reversal: reversalOf(notificationType, notification, transaction),
        evidence: compact({
          notificationUUID,
          notificationType,
          subtype: notification.subtype,
          version: notification.version,
          signedDate: isoDate(notification.signedDate),
          appAppleId: notification.data?.appAppleId,
          bundleId: notification.data?.bundleId,
          bundleVersion: notification.data?.bundleVersion,
          environment: notification.data?.environment,
          status: notification.data?.status,
          consumptionRequestReason: notification.data?.consumptionRequestReason,
          transaction: transaction ? transactionEvidence(transaction) : undefined,
        }),
      };
    },
  };
}

function toPurchase(t: JWSTransactionDecodedPayload, environment: StoreEnvironment): VerifiedPurchase {
  const quantity = t.quantity ?? 1;
  const purchasedAt = new Date(t.purchaseDate ?? Number.NaN);
  if (!t.transactionId || !t.productId || Number.isNaN(purchasedAt.getTime()) || !Number.isInteger(quantity) || quantity < 1) {
    throw new AppError("RECEIPT_INVALID", { message: "The App Store transaction lacks its id, product, purchase date or quantity." });
  }
  return {
    store: "apple",
    transactionId: t.transactionId,
    originalTransactionId: t.originalTransactionId ?? null,
    productId: t.productId,
    quantity,
    environment,
    purchasedAt,
    // Apple states prices in milliunits of the currency (1.99 USD is 1990), for the whole quantity:
    // https://developer.apple.com/documentation/appstoreserverapi/price
    priceMicros: t.price === undefined ? null : t.price * 1000,
    currency: t.currency ?? null,
    evidence: transactionEvidence(t),
  };
}

/**
 * What a support person needs to find the purchase in App Store Connect or answer a dispute:
 * Apple's ids, dates (as ISO strings), states and storefront. The JWS itself, its certificates
 * and signature are left out on purpose.
 */
function transactionEvidence(t: JWSTransactionDecodedPayload): Record<string, unknown> {
  return compact({
    transactionId: t.transactionId,
    originalTransactionId: t.originalTransactionId,
    webOrderLineItemId: t.webOrderLineItemId,
    appTransactionId: t.appTransactionId,
    bundleId: t.bundleId,
    productId: t.productId,
    subscriptionGroupIdentifier: t.subscriptionGroupIdentifier,
    type: t.type,
    quantity: t.quantity,
    price: t.price,
    currency: t.currency,
    purchaseDate: isoDate(t.purchaseDate),
    originalPurchaseDate: isoDate(t.originalPurchaseDate),
    expiresDate: isoDate(t.expiresDate),
    signedDate: isoDate(t.signedDate),
    environment: t.environment,
    storefront: t.storefront,
    storefrontId: t.storefrontId,
    inAppOwnershipType: t.inAppOwnershipType,
    transactionReason: t.transactionReason,
    appAccountToken: t.appAccountToken,
    offerType: t.offerType,
    offerIdentifier: t.offerIdentifier,
    offerDiscountType: t.offerDiscountType,
    offerPeriod: t.offerPeriod,
    isUpgraded: t.isUpgraded,
    revocationDate: isoDate(t.revocationDate),
    revocationReason: t.revocationReason,
    revocationType: t.revocationType,
    revocationPercentage: t.revocationPercentage,
  });
}

/**
 * REFUND (Apple refunded the purchase) and REVOKE (a Family Sharing purchase is no longer shared)
 * take the purchase back; REFUND_REVERSED (Apple reversed a refund after a dispute) gives it back.
 * https://developer.apple.com/documentation/appstoreservernotifications/notificationtype
 */
function reversalOf(
  type: string,
  notification: ResponseBodyV2DecodedPayload,
  transaction: JWSTransactionDecodedPayload | null,
): StoreReversal | null {
  const kind = type === "REFUND" || type === "REVOKE" ? "refund" : type === "REFUND_REVERSED" ? "refund_reversed" : null;
  if (kind === null) return null;
  if (!transaction?.transactionId) {
    throw new AppError("RECEIPT_INVALID", { message: `The App Store ${type} notification carries no transaction.` });
  }
  const reason = type === "REFUND" ? (REVOCATION_REASONS[transaction.revocationReason ?? -1] ?? type) : (REASON_BY_TYPE[type] ?? type);
  const at = (kind === "refund" ? transaction.revocationDate : undefined) ?? notification.signedDate ?? Date.now();
  return {
    store: "apple",
    transactionId: transaction.transactionId,
    kind,
    reason,
    at: new Date(at),
    evidence: compact({ notificationUUID: notification.notificationUUID, notificationType: type, ...transactionEvidence(transaction) }),
  };
}

/**
 * Apple's library reports a certificate outside its validity window as INVALID_CERTIFICATE, the
 * status it also uses for an unparsable x5c header (with the parse error as cause) and for OCSP
 * answers it cannot use (online checks only). So the refusal is RECEIPT_EXPIRED only when the
 * library gave no cause and the chain's leaf or intermediate has indeed expired at the date the
 * library checked against (the payload's signedDate, or now with online checks), with its skew.
 */
function signedWithExpiredCertificate(error: VerificationException, jws: string, onlineChecks: boolean): boolean {
  if (error.cause !== undefined) return false;
  const payload = peekPayload(jws);
  const signedDate = typeof payload?.signedDate === "number" ? payload.signedDate : undefined;
  const at = onlineChecks || signedDate === undefined ? Date.now() : signedDate;
  try {
    const chain = peekHeaderChain(jws).slice(0, 2);
    return chain.some((der) => new Date(new X509Certificate(der).validTo).getTime() < at - MAX_SKEW_MS);
  } catch {
    return false;
  }
}

function peekPayload(jws: string): Record<string, unknown> | null {
  return peekPart(jws, 1);
}

function peekHeaderChain(jws: string): Buffer[] {
  const x5c = peekPart(jws, 0)?.x5c;
  if (!Array.isArray(x5c)) return [];
  return x5c.filter((c): c is string => typeof c === "string").map((c) => Buffer.from(c, "base64"));
}

/** A JWS part decoded without verification: only to choose a verifier or explain its refusal. */
function peekPart(jws: string, index: number): Record<string, unknown> | null {
  if (typeof jws !== "string") return null;
  const part = jws.split(".")[index];
  if (!part) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function storeEnvironment(apple: unknown): StoreEnvironment | null {
  if (apple === Environment.PRODUCTION) return "production";
  if (apple === Environment.SANDBOX) return "sandbox";
  return null;
}

function transactionEnvironment(payload: Record<string, unknown> | null): StoreEnvironment | null {
  return storeEnvironment(payload?.environment);
}

/** Where a notification says it comes from, the way Apple's library reads it (data, summary, appData, external token). */
function notificationEnvironment(payload: Record<string, unknown> | null): StoreEnvironment | null {
  for (const key of ["data", "summary", "appData"]) {
    const part = payload?.[key];
    if (typeof part === "object" && part !== null && "environment" in part) return storeEnvironment(part.environment);
  }
  const token = payload?.externalPurchaseToken;
  if (typeof token === "object" && token !== null && "externalPurchaseId" in token && typeof token.externalPurchaseId === "string") {
    return token.externalPurchaseId.startsWith("SANDBOX") ? "sandbox" : "production";
  }
  return null;
}

function isoDate(ms: number | undefined): string | undefined {
  const date = ms === undefined ? null : new Date(ms);
  return date === null || Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
