import { createHash, randomBytes } from "node:crypto";

/** SHA-256 as the bytes Prisma stores in a `Bytes` column. */
export function sha256(text: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash("sha256").update(text).digest());
}

/** A UUIDv7 (RFC 9562): 48-bit Unix-ms timestamp, then random bits. Time-ordered, like Prisma's uuid(7). */
export function uuidv7(now = Date.now()): string {
  const bytes = randomBytes(16);
  let ts = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ts & 0xff;
    ts = Math.floor(ts / 256);
  }
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The smallest UUIDv7 of a millisecond: every id made from then on is not below it (a time bound on an id index). */
export function uuidv7Floor(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}
