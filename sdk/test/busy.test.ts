import { createClient, type GameApiError, memoryStorage } from "@game-backend/client";
import { beforeAll, describe, expect, it } from "vitest";
import { dedicatedApp } from "@/e2e/support/dedicated-app";
import { makeProject, type TestProject } from "@/e2e/support/fixtures";
import { type Exchange, recordingFetch } from "./support";

/**
 * The server's password-hashing gate with one slot and no queue: a registration arriving while
 * another one hashes is refused with 503 SERVICE_UNAVAILABLE `details.reason`
 * "password_checks_busy" and Retry-After 1 (PASSWORD_HASH_MAX_WAIT_MS rounded up to seconds),
 * before anything is done. Several registrations at once meet it; a round in which none met it
 * (they happened not to overlap) is run again.
 */
const app = dedicatedApp({ PASSWORD_HASH_CONCURRENCY: "1", PASSWORD_HASH_QUEUE: "0", PASSWORD_HASH_MAX_WAIT_MS: "1000" });
const AT_ONCE = 3;
const MAX_ROUNDS = 10;
const password = "a long and unusual passphrase";

let project: TestProject;
beforeAll(async () => {
  project = await makeProject();
});

let n = 0;
/** AT_ONCE registrations at once, each from its own client; what each call ended with and its exchanges. */
async function registrations(extra: Partial<Parameters<typeof createClient>[0]>) {
  const players = Array.from({ length: AT_ONCE }, () => {
    const { fetch, log } = recordingFetch();
    const game = createClient({ baseUrl: app().baseUrl, apiKey: project.clientKey, fetch, storage: memoryStorage(), ...extra });
    return { game, log };
  });
  const outcomes = await Promise.allSettled(
    players.map((p) => p.game.auth.register({ email: `busy-${Date.now()}-${++n}@example.com`, password })),
  );
  return outcomes.map((outcome, i) => ({ outcome, log: players[i]?.log ?? [] }));
}

const busy = (e: Exchange) => e.status === 503 && e.reason === "password_checks_busy";

describe("password checks busy", () => {
  it("a registration refused because the password checks are busy is sent again after Retry-After, beyond maxDelayMs, and succeeds", async () => {
    const refused: Exchange[][] = [];
    for (let round = 0; round < MAX_ROUNDS && refused.length === 0; round++) {
      const calls = await registrations({ retry: { baseDelayMs: 500, maxDelayMs: 100 } });
      expect(calls.map((c) => c.outcome.status)).toEqual(calls.map(() => "fulfilled"));
      refused.push(...calls.map((c) => c.log).filter((log) => log.some(busy)));
    }
    expect(refused.length).toBeGreaterThan(0);
    for (const log of refused) {
      expect(log.at(-1)?.status).toBe(200);
      for (let i = 1; i < log.length; i++) {
        const previous = log[i - 1] as Exchange;
        expect(busy(previous)).toBe(true);
        // Sent again no sooner than Retry-After (1 s) asked, timer granularity aside.
        expect((log[i] as Exchange).startedAt - previous.endedAt).toBeGreaterThanOrEqual(995);
      }
    }
  }, 60_000);

  it("a busy refusal whose Retry-After is past the call's deadline rejects at once with it", async () => {
    const refused: { error: GameApiError; log: Exchange[] }[] = [];
    for (let round = 0; round < MAX_ROUNDS && refused.length === 0; round++) {
      const calls = await registrations({ deadlineMs: 900 });
      for (const { outcome, log } of calls) {
        if (outcome.status === "rejected" && (outcome.reason as GameApiError).code === "SERVICE_UNAVAILABLE") {
          refused.push({ error: outcome.reason, log });
        } else if (outcome.status === "rejected") {
          // The winners may run past 900 ms on a busy machine.
          expect(outcome.reason).toMatchObject({ code: "TIMEOUT" });
        }
      }
    }
    expect(refused.length).toBeGreaterThan(0);
    for (const { error, log } of refused) {
      expect(error).toMatchObject({ status: 503, retryAfterSeconds: 1, details: { reason: "password_checks_busy" } });
      expect(log.map((e) => e.status)).toEqual([503]);
    }
  }, 60_000);
});
