import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { env } from "./env";

/**
 * Secrets kept at rest (webhook endpoint secrets, store credentials): AES-256-GCM under a key
 * derived from JWT_SECRET with HKDF-SHA256 and a label per purpose, so a key is used for one kind
 * of secret only. Stored as `v1:<iv>:<tag>:<ciphertext>` (base64url). Changing JWT_SECRET makes
 * stored secrets unreadable: they must then be entered again (webhooks: rotated).
 */
export type SecretPurpose = "game-backend webhook endpoint secret v1" | "game-backend store credential v1";

const derived = new Map<SecretPurpose, { from: string; key: Buffer }>();

function keyFor(purpose: SecretPurpose): Buffer {
  const secret = env().JWT_SECRET;
  let hit = derived.get(purpose);
  if (hit?.from !== secret) {
    hit = { from: secret, key: Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), purpose, 32)) };
    derived.set(purpose, hit);
  }
  return hit.key;
}

export function sealSecret(purpose: SecretPurpose, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyFor(purpose), iv);
  const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), data.toString("base64url")].join(":");
}

export function openSecret(purpose: SecretPurpose, stored: string): string {
  const [version, iv, tag, data] = stored.split(":");
  if (version !== "v1" || !iv || !tag || data === undefined) throw new Error("not a sealed secret");
  const decipher = createDecipheriv("aes-256-gcm", keyFor(purpose), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
}
