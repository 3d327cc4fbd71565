import { createHash } from "node:crypto";

/** SHA-256 as the bytes Prisma stores in a `Bytes` column. */
export function sha256(text: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash("sha256").update(text).digest());
}
