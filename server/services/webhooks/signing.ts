import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { env } from "../../env";

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): a secret is `whsec_` + base64 of
 * random bytes; a delivery carries `webhook-id`, `webhook-timestamp` (Unix seconds of the
 * attempt) and `webhook-signature`, space-separated `v1,<base64 HMAC-SHA256 of
 * "${id}.${timestamp}.${body}">`, one per secret (two during a rotation's overlap), keyed by the
 * base64-decoded part after `whsec_`.
 */
const PREFIX = "whsec_";

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. Shown to the operator once. */
export function newSecret(): string {
  return `${PREFIX}${randomBytes(32).toString("base64")}`;
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error("not a webhook secret (whsec_…)");
  return Buffer.from(secret.slice(PREFIX.length), "base64");
}

/** `v1,<base64 signature>` of one message under one secret. */
export function sign(o: { id: string; timestamp: number; body: string; secret: string }): string {
  const mac = createHmac("sha256", keyOf(o.secret)).update(`${o.id}.${o.timestamp}.${o.body}`).digest("base64");
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers of one attempt; several secrets give several signatures. */
export function signatureHeaders(o: { id: string; timestamp: number; body: string; secrets: string[] }): Record<string, string> {
  if (o.secrets.length === 0) throw new Error("no secret to sign with");
  return {
    "webhook-id": o.id,
    "webhook-timestamp": String(o.timestamp),
    "webhook-signature": o.secrets.map((secret) => sign({ id: o.id, timestamp: o.timestamp, body: o.body, secret })).join(" "),
  };
}

// Secrets at rest: AES-256-GCM under a key derived from JWT_SECRET (HKDF-SHA256 with a fixed
// label, so the key is used for nothing else). Stored as `v1:<iv>:<tag>:<ciphertext>` (base64url).
// Changing JWT_SECRET makes stored secrets unreadable: endpoints then need a rotated secret.
const INFO = "game-backend webhook endpoint secret v1";
let derived: { from: string; key: Buffer } | undefined;
function atRestKey(): Buffer {
  const secret = env().JWT_SECRET;
  if (derived?.from !== secret) {
    derived = { from: secret, key: Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), INFO, 32)) };
  }
  return derived.key;
}

export function encryptSecret(secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", atRestKey(), iv);
  const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), data.toString("base64url")].join(":");
}

export function decryptSecret(stored: string): string {
  const [version, iv, tag, data] = stored.split(":");
  if (version !== "v1" || !iv || !tag || data === undefined) throw new Error("not an encrypted webhook secret");
  const decipher = createDecipheriv("aes-256-gcm", atRestKey(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
}

/** The secrets a delivery is signed with now: the current one, and the previous one while its overlap lasts. */
export function signingSecrets(
  o: { secret: string; previousSecret: string | null; previousSecretUntil: Date | null },
  now = new Date(),
): string[] {
  const secrets = [decryptSecret(o.secret)];
  if (o.previousSecret && o.previousSecretUntil && o.previousSecretUntil > now) secrets.push(decryptSecret(o.previousSecret));
  return secrets;
}
