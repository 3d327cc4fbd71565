import { z } from "zod";
import { transaction } from "../db";
import { AppError } from "../errors";
import { claimIdempotencyKey, completeIdempotencyKey, type IdempotencyScope, requestHash } from "../services/idempotency";
import { Reply } from "./respond";

/** 1–255 visible ASCII characters, as the contract says; anything else is a 400, not a silent no-op. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The scope of a request's Idempotency-Key, or null when it sends none. */
export function idempotencyScope(req: Request, url: URL, projectId: string, playerId: string, body: unknown): IdempotencyScope | null {
  const key = req.headers.get("idempotency-key");
  if (key === null) return null;
  if (!KEY_PATTERN.test(key)) {
    throw new AppError("VALIDATION_ERROR", {
      details: { issues: [{ path: "headers.idempotency-key", message: "Idempotency-Key must be 1–255 visible ASCII characters." }] },
    });
  }
  return { projectId, playerId, key, requestHash: requestHash(req.method, url.pathname, body) };
}

/**
 * Runs a change at most once per key: a completed key replays its first answer (with
 * `Idempotent-Replayed: true`); otherwise the claim, the change and the record of its answer
 * commit in one transaction (every query the service makes joins it), so a refused change or a
 * crash leaves no claim behind.
 */
export async function runIdempotent(scope: IdempotencyScope, run: () => Promise<Reply>): Promise<Reply> {
  return transaction(async () => {
    const stored = await claimIdempotencyKey(scope);
    if (stored) return new Reply(stored.status, stored.body, { "Idempotent-Replayed": "true" });
    const reply = await run();
    await completeIdempotencyKey(scope, { status: reply.status, body: reply.body });
    return reply;
  });
}

export const ZIdempotencyHeader = z.object({
  "Idempotency-Key": z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({ description: "1–255 visible ASCII characters, unique per change; kept 24 hours per player." }),
});
