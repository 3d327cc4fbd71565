// A stand-in for Apple's signing PKI, made with the openssl CLI (no private key is ever
// committed), and the App Store's payloads signed with it. Plain JavaScript so the suite's
// TypeScript helper (apple-test-pki.ts, which types it with @apple/app-store-server-library's
// payloads) and the local stores (local-stores.mjs, `npm run stores:local`) share one maker;
// types in apple-pki.d.mts.
//
// The chain is a root CA, an intermediate and a leaf, all EC P-256, shaped the way
// @apple/app-store-server-library's SignedDataVerifier checks them (dist/jws_verification.js):
// the intermediate is a CA carrying Apple's WWDR marker extension 1.2.840.113635.100.6.2.1, the
// leaf carries the receipt-signing marker 1.2.840.113635.100.6.11.1, and the JWS header's x5c
// holds exactly three certificates, leaf first. The verifier is given `rootDer` as its trusted root.
//
// JWS shape (ES256, header `alg` + `x5c` of base64 DER):
// https://developer.apple.com/documentation/appstoreserverapi/jwsdecodedheader
import { execFileSync } from "node:child_process";
import { createPrivateKey, randomInt, randomUUID, sign, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** The app the builders' payloads belong to; give the verifier these to accept them. */
export const TEST_APPLE_APP = Object.freeze({ bundleId: "com.example.game", appAppleId: 1234567890 });

function extensions(ocspUrl) {
  // Apple's certificates name their OCSP responder; the library asks it when online checks are on.
  const ocsp = ocspUrl === undefined ? "" : `authorityInfoAccess = OCSP;URI:${ocspUrl}`;
  return `
[root]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash

[intermediate]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
1.2.840.113635.100.6.2.1 = ASN1:NULL
${ocsp}

[leaf]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
authorityKeyIdentifier = keyid
1.2.840.113635.100.6.11.1 = ASN1:NULL
${ocsp}

[leafWithoutMarker]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
authorityKeyIdentifier = keyid
1.2.840.113635.100.6.11.2 = ASN1:NULL
${ocsp}
`;
}

/**
 * Makes a PKI with the openssl CLI in a temporary directory it removes before returning (the
 * keys live on in memory only). `leafExpired`: the leaf's notAfter is a day before now, so
 * anything signed now is signed with an expired certificate. `wrongLeafOid`: the leaf lacks
 * Apple's receipt-signing marker (it carries a neighbouring OID instead). `ocspUrl`: the OCSP
 * responder the leaf and the intermediate name (for tests of online checks against a local server).
 */
export function makeApplePki(o = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), "apple-test-pki-"));
  const file = (name) => path.join(dir, name);
  const openssl = (...args) => execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  try {
    writeFileSync(file("ext.cnf"), extensions(o.ocspUrl));
    const certificate = (name, subject, section, days, issuer) => {
      openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", `${name}.key`);
      openssl("req", "-new", "-key", `${name}.key`, "-subj", subject, "-out", `${name}.csr`);
      const signer = issuer ? ["-CA", `${issuer}.pem`, "-CAkey", `${issuer}.key`] : ["-signkey", `${name}.key`];
      // -days -1 is the only way OpenSSL 3.0's x509 command writes a notAfter in the past.
      openssl(
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        ...signer,
        "-set_serial",
        String(randomInt(1, 2 ** 47)),
        "-days",
        String(days),
        "-sha256",
        "-extfile",
        "ext.cnf",
        "-extensions",
        section,
        "-out",
        `${name}.pem`,
      );
      return {
        der: new X509Certificate(readFileSync(file(`${name}.pem`))).raw,
        key: createPrivateKey(readFileSync(file(`${name}.key`))),
      };
    };
    const root = certificate("root", "/CN=Test Apple Root CA - G3/OU=game-backend tests/O=Example/C=US", "root", 3650);
    const intermediate = certificate(
      "intermediate",
      "/CN=Test Apple Worldwide Developer Relations Certification Authority/OU=G6/O=Example/C=US",
      "intermediate",
      3650,
      "root",
    );
    const leaf = certificate(
      "leaf",
      "/CN=Test Prod ECC Mac App Store and iTunes Store Receipt Signing/OU=Apple Worldwide Developer Relations/O=Example/C=US",
      o.wrongLeafOid ? "leafWithoutMarker" : "leaf",
      o.leafExpired ? -1 : 365,
      "intermediate",
    );
    const x5c = [leaf.der, intermediate.der, root.der].map((der) => der.toString("base64"));
    return applePkiFrom({ x5c, leafKeyPem: leaf.key.export({ type: "pkcs8", format: "pem" }).toString() });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A PKI from what it signs with (`material`: the x5c chain and the leaf's key, as JSON). */
export function applePkiFrom(material) {
  const key = createPrivateKey(material.leafKeyPem);
  const signJws = (payload) => jws(payload, material.x5c, key);
  const rootDer = Buffer.from(material.x5c[2] ?? "", "base64");
  return { rootDer, signTransaction: signJws, signNotification: signJws, material };
}

function jws(payload, x5c, key) {
  const header = Buffer.from(JSON.stringify({ alg: "ES256", x5c })).toString("base64url");
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  // JWS ES256 wants the raw r||s signature, not DER (RFC 7518 §3.4).
  const signature = sign("sha256", Buffer.from(`${header}.${body}`), { key, dsaEncoding: "ieee-p1363" });
  return `${header}.${body}.${signature.toString("base64url")}`;
}

/**
 * A consumable bought in production now, with the fields Apple documents for
 * JWSTransactionDecodedPayload (https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload;
 * price in milliunits: https://developer.apple.com/documentation/appstoreserverapi/price). Each
 * call has a new transactionId, so tests never collide on the receipts table's key.
 */
export function transactionPayload(overrides = {}) {
  const now = Date.now();
  const transactionId = String(2_000_000_000_000_000 + randomInt(2 ** 47));
  return {
    transactionId,
    originalTransactionId: transactionId,
    bundleId: TEST_APPLE_APP.bundleId,
    productId: "com.example.game.gems100",
    purchaseDate: now - 60_000,
    originalPurchaseDate: now - 60_000,
    quantity: 1,
    type: "Consumable",
    inAppOwnershipType: "PURCHASED",
    signedDate: now,
    environment: "Production",
    transactionReason: "PURCHASE",
    storefront: "USA",
    storefrontId: "143441",
    price: 1990,
    currency: "USD",
    appTransactionId: String(700_000_000_000_000_000n + BigInt(randomInt(2 ** 47))),
    ...overrides,
  };
}

/**
 * An App Store Server Notification V2 payload for the test app in production, by default a TEST
 * notification (https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload,
 * its `data`: https://developer.apple.com/documentation/appstoreservernotifications/data).
 * `data` in the overrides is merged into the default data; put a signed transaction in
 * `data.signedTransactionInfo` for REFUND, REVOKE, REFUND_REVERSED and the like.
 */
export function notificationPayload(overrides = {}) {
  const data = {
    environment: "Production",
    appAppleId: TEST_APPLE_APP.appAppleId,
    bundleId: TEST_APPLE_APP.bundleId,
    bundleVersion: "1.0",
  };
  return {
    notificationType: "TEST",
    notificationUUID: randomUUID(),
    version: "2.0",
    signedDate: Date.now(),
    ...overrides,
    data: { ...data, ...overrides.data },
  };
}
