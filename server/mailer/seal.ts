import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { env } from "../env";

/**
 * A message's one-time code between queueing and delivery: AES-256-GCM under a key derived from
 * JWT_SECRET (HKDF-SHA256 with a label of its own, so the key serves nothing else), bound to the
 * message's id (associated data: a sealed code copied onto another row does not open). Stored as
 * `v1:<iv>:<tag>:<ciphertext>` (base64url) and wiped once the message is SENT, FAILED or OUTBOX.
 */
const INFO = "game-backend e-mail one-time code v1";
let derived: { from: string; key: Buffer } | undefined;
function key(): Buffer {
  const secret = env().JWT_SECRET;
  if (derived?.from !== secret) derived = { from: secret, key: Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), INFO, 32)) };
  return derived.key;
}

export function sealCode(messageId: string, code: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key(), iv);
  cipher.setAAD(Buffer.from(messageId, "utf8"));
  const data = Buffer.concat([cipher.update(code, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), data.toString("base64url")].join(":");
}

/** The code, or null when the value does not open (another JWT_SECRET, another message, not a sealed code). */
export function openCode(messageId: string, sealed: string): string | null {
  const [version, iv, tag, data] = sealed.split(":");
  if (version !== "v1" || !iv || !tag || data === undefined) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", key(), Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(messageId, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
