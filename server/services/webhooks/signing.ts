import { createHmac, randomBytes } from "node:crypto";
import { openSecret, sealSecret } from "../../secret-box";

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

// Endpoint secrets at rest: sealed under their own key (server/secret-box.ts).
const PURPOSE = "game-backend webhook endpoint secret v1";
export const encryptSecret = (secret: string): string => sealSecret(PURPOSE, secret);
export const decryptSecret = (stored: string): string => openSecret(PURPOSE, stored);

/** The secrets a delivery is signed with now: the current one, and the previous one while its overlap lasts. */
export function signingSecrets(
  o: { secret: string; previousSecret: string | null; previousSecretUntil: Date | null },
  now = new Date(),
): string[] {
  const secrets = [decryptSecret(o.secret)];
  if (o.previousSecret && o.previousSecretUntil && o.previousSecretUntil > now) secrets.push(decryptSecret(o.previousSecret));
  return secrets;
}
