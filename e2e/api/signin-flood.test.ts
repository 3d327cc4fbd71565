import { randomBytes } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { registerWithEmail } from "@/server/services/auth/email";
import { upsertOperator } from "@/server/services/operators";
import { metricSample } from "../support/api";
import { dedicatedApp } from "../support/dedicated-app";
import { anonymousPlayer, makeProject } from "../support/fixtures";

/**
 * Password hashing is bounded: one argon2 operation at a time, two waiting, the rest refused with
 * 503 before hashing. Each flood is real sign-in requests, many more at once than one slot and a
 * queue of two can take: no assertion depends on how fast the machine hashes. The wait limit is
 * generous (60 s), so a queued request is never refused for waiting on a slow machine; only a
 * full queue refuses.
 */
const app = dedicatedApp({
  PASSWORD_HASH_CONCURRENCY: "1",
  PASSWORD_HASH_QUEUE: "2",
  PASSWORD_HASH_MAX_WAIT_MS: "60000",
  TRUST_PROXY: "true",
  REDIS_URL: inject("redisUrl") || undefined,
  RATE_LIMIT_STORE_TIMEOUT_MS: "1000",
  RATE_LIMIT_CREDENTIAL_TIMEOUT_MS: "5000",
  API_KEY_CACHE_TTL_SECONDS: "1",
});
const base = () => app().baseUrl;

const FLOOD = 30;
const MAX_ROUNDS = 10;
/** Up to MAX_ROUNDS floods of real argon2 checks on a busy machine (the first warms a cold app): generous. */
const TEST_TIMEOUT_MS = 180_000;

type Answer = { status: number; headers: Headers; body: Record<string, unknown> };
const answer = async (res: Response): Promise<Answer> => ({
  status: res.status,
  headers: res.headers,
  body: (await res.json().catch(() => ({}))) as Record<string, unknown>,
});

let v6 = 0;
/** A new IPv6 /64 per call: per-address budgets never refuse the flood, only the hashing gate may. */
const strangerIp = () => `2001:db8:${(++v6).toString(16)}:${randomBytes(2).toString("hex")}::1`;

const login = (key: string, email: string, password: string, ip: string) =>
  fetch(`${base()}/api/v1/auth/email/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-API-Key": key, "X-Forwarded-For": ip },
    body: JSON.stringify({ email, password }),
  }).then(answer);

const wrongLogins = (key: string) =>
  Array.from({ length: FLOOD }, () => login(key, `nobody-${randomBytes(4).toString("hex")}@example.com`, "wrong password", strangerIp()));

const hashCounts = async () => {
  const text = await (await fetch(`${base()}/api/metrics`)).text();
  return {
    hashes:
      metricSample(text, 'gb_password_hashes_total{priority="known"}') +
      metricSample(text, 'gb_password_hashes_total{priority="stranger"}'),
    refusals: ["known", "stranger"]
      .flatMap((p) =>
        ["queue_full", "displaced", "waited_too_long"].map((r) => `gb_password_hash_refusals_total{priority="${p}",reason="${r}"}`),
      )
      .reduce((n, series) => n + metricSample(text, series), 0),
  };
};

const refusedByGate = (a: Answer) =>
  a.status === 503 && (a.body.error as { details?: { reason?: string } } | undefined)?.details?.reason === "password_checks_busy";

/** Floods until a round has refused some attempts (the first does on any machine: 30 at once for 3 places); the answers of every round. */
async function floodUntilRefused(key: string, beside: (firstRefusal: Promise<void>) => Promise<void> = async () => {}) {
  const answers: Answer[] = [];
  for (let round = 0; round < MAX_ROUNDS && !answers.some(refusedByGate); round++) {
    let refusalSeen: () => void = () => {};
    const firstRefusal = new Promise<void>((resolve) => {
      refusalSeen = resolve;
    });
    const flood = wrongLogins(key).map((p) =>
      p.then((a) => {
        if (refusedByGate(a)) refusalSeen();
        return a;
      }),
    );
    const done = Promise.all(flood);
    // Whatever runs beside the flood stops waiting for a refusal once the flood is answered.
    await Promise.all([done, beside(Promise.race([firstRefusal, done.then(() => undefined)]))]);
    answers.push(...(await done));
  }
  return answers;
}

describe("sign-in flood against a hashing gate of one slot and a queue of two", () => {
  it(
    "Medium: beyond the queue a wrong sign-in is refused with 503 and Retry-After in the error shape",
    async () => {
      const project = await makeProject();
      const answers = await floodUntilRefused(project.clientKey);
      const refused = answers.filter((a) => a.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      for (const a of refused) {
        expect(a.body).toEqual({
          error: {
            code: "SERVICE_UNAVAILABLE",
            message: expect.any(String),
            details: { reason: "password_checks_busy", retryAfterSeconds: expect.any(Number) },
          },
        });
        // The seconds until the queue ahead drains at the measured speed: at least 1, at most the wait limit.
        const seconds = (a.body.error as { details: { retryAfterSeconds: number } }).details.retryAfterSeconds;
        expect(seconds).toBeGreaterThanOrEqual(1);
        expect(seconds).toBeLessThanOrEqual(60);
        expect(a.headers.get("retry-after")).toBe(String(seconds));
      }
      expect(answers.filter((a) => a.status !== 503 && a.status !== 401)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "Medium: a sign-in refused by the full queue hashes nothing (one argon2 operation per 401, none per 503)",
    async () => {
      const project = await makeProject();
      const before = await hashCounts();
      const answers = await floodUntilRefused(project.clientKey);
      const after = await hashCounts();
      const checked = answers.filter((a) => a.status === 401).length;
      const refused = answers.filter(refusedByGate).length;
      expect(refused).toBeGreaterThan(0);
      expect({ hashes: after.hashes - before.hashes, refusals: after.refusals - before.refusals }).toEqual({
        hashes: checked,
        refusals: refused,
      });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "Medium: gameplay requests are answered while the hashing queue refuses a flood",
    async () => {
      const project = await makeProject();
      const player = await anonymousPlayer(project.clientKey);
      const headers = { "X-API-Key": project.clientKey, Authorization: `Bearer ${player.accessToken}`, "Content-Type": "application/json" };
      const gameplay: number[] = [];
      const answers = await floodUntilRefused(project.clientKey, async (firstRefusal) => {
        await firstRefusal;
        for (let i = 0; i < 5; i++) {
          const put = await fetch(`${base()}/api/v1/players/${player.playerId}/data/progress`, {
            method: "PUT",
            headers,
            body: JSON.stringify({ value: { i } }),
          });
          const get = await fetch(`${base()}/api/v1/players/${player.playerId}/data/progress`, { headers });
          gameplay.push(put.status, get.status);
        }
      });
      expect(answers.some(refusedByGate)).toBe(true);
      expect(gameplay.every((s) => s === 200 || s === 201)).toBe(true);
      expect(gameplay).toHaveLength(10);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "Medium: a flood of wrong sign-ins does not refuse a player's correct sign-in from an address it signed in from before",
    async () => {
      const project = await makeProject();
      const email = `known-${randomBytes(4).toString("hex")}@example.com`;
      const password = "the right password";
      await registerWithEmail({ projectId: project.projectId, email, password, playerId: null });
      const home = "203.0.113.77";
      expect((await login(project.clientKey, email, password, home)).status).toBe(200);

      let known: Answer | undefined;
      const answers = await floodUntilRefused(project.clientKey, async (firstRefusal) => {
        await firstRefusal; // sent while the flood is being refused
        known = await login(project.clientKey, email, password, home);
      });
      expect(answers.some(refusedByGate)).toBe(true);
      expect(known?.status).toBe(200);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "Medium: a flood of wrong dashboard sign-ins does not refuse the operator's correct sign-in from an address it signed in from before",
    async () => {
      const project = await makeProject();
      const email = `op-${randomBytes(4).toString("hex")}@studio.test`;
      const password = "the operator's password";
      await upsertOperator({ email, name: email, password });
      const office = "2001:db8:ffff:1::5";
      expect(await dashboardSignIn(email, password, office)).toBe(true);

      let signedIn: boolean | undefined;
      const answers = await floodUntilRefused(project.clientKey, async (firstRefusal) => {
        await firstRefusal;
        // Another address in the same /64 (a rotating privacy address) is the same client.
        signedIn = await dashboardSignIn(email, password, "2001:db8:ffff:1::6");
      });
      expect(answers.some(refusedByGate)).toBe(true);
      expect(signedIn).toBe(true);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("registrations refused by the hashing gate", () => {
  it(
    "answer 503 password_checks_busy in the error shape, never 500, after sign-ins of another route made the gate",
    async () => {
      const project = await makeProject();
      // A sign-in first: the gate (shared by every route bundle through globalThis) is made by the login route's bundle.
      await login(project.clientKey, "nobody@example.com", "wrong password", strangerIp());
      let answers: Answer[] = [];
      for (let round = 0; round < MAX_ROUNDS && !answers.some(refusedByGate); round++) {
        answers = await Promise.all(
          Array.from({ length: FLOOD }, (_, i) =>
            fetch(`${base()}/api/v1/auth/email/register`, {
              method: "POST",
              headers: { "Content-Type": "application/json", "X-API-Key": project.clientKey, "X-Forwarded-For": strangerIp() },
              body: JSON.stringify({
                email: `burst-${round}-${i}-${randomBytes(3).toString("hex")}@example.com`,
                password: "a fine password",
              }),
            }).then(answer),
          ),
        );
      }
      expect(answers.some(refusedByGate)).toBe(true);
      expect(answers.filter((a) => a.status !== 200 && !refusedByGate(a)).map((a) => a.status)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});

const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");

/** The dashboard's Credentials sign-in as a browser does it; true when a session cookie came back. */
async function dashboardSignIn(email: string, password: string, ip: string): Promise<boolean> {
  const csrf = await fetch(`${base()}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${base()}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookiesOf(csrf).join("; "), "X-Forwarded-For": ip },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  return cookiesOf(res).some((c) => c.startsWith("next-auth.session-token="));
}
