/** What a PKI signs with, as JSON: the x5c chain (base64 DER, leaf first) and the leaf's PKCS#8 key. */
export type ApplePkiMaterial = { x5c: string[]; leafKeyPem: string };

/** Payloads are typed by the caller (e2e/support/apple-test-pki.ts types them with Apple's library). */
export type AnyApplePki = {
  rootDer: Buffer;
  signTransaction(payload: object): string;
  signNotification(payload: object): string;
  material: ApplePkiMaterial;
};

export const TEST_APPLE_APP: { readonly bundleId: "com.example.game"; readonly appAppleId: 1234567890 };
export function makeApplePki(o?: { leafExpired?: boolean; wrongLeafOid?: boolean; ocspUrl?: string }): AnyApplePki;
export function applePkiFrom(material: ApplePkiMaterial): AnyApplePki;
export function transactionPayload(overrides?: Record<string, unknown>): Record<string, unknown> & { transactionId: string };
export function notificationPayload(
  overrides?: Record<string, unknown> & { data?: Record<string, unknown> },
): Record<string, unknown> & { notificationUUID: string };
