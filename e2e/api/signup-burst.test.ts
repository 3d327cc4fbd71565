import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { dedicatedApp } from "../support/dedicated-app";
import { makeProject } from "../support/fixtures";

/**
 * Launch day: a burst of real registrations waits for the hashing gate instead of being turned
 * away. One hashing slot and the default queue (bounded by time, not by a count of 8 as before);
 * the wait limit is generous (60 s) so that a slow machine only makes the burst slower, never
 * refused. Each registration comes from its own address (a new player each), as a launch does.
 */
const app = dedicatedApp({
  PASSWORD_HASH_CONCURRENCY: "1",
  PASSWORD_HASH_MAX_WAIT_MS: "60000",
  TRUST_PROXY: "true",
  API_KEY_CACHE_TTL_SECONDS: "1",
});

const BURST = 50;
/** 50 argon2 hashes one after the other on a busy machine, plus the app's first requests: generous. */
const TEST_TIMEOUT_MS = 180_000;

it(
  "50 e-mail registrations at once all succeed, none refused with 503 password_checks_busy",
  async () => {
    const project = await makeProject();
    const statuses = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        fetch(`${app().baseUrl}/api/v1/auth/email/register`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-API-Key": project.clientKey, "X-Forwarded-For": `198.51.100.${i + 1}` },
          body: JSON.stringify({
            email: `launch-${i}-${randomBytes(3).toString("hex")}@example.com`,
            password: randomBytes(12).toString("base64url"),
          }),
        }).then(async (res) => (res.ok ? "ok" : `${res.status} ${((await res.json()) as { error?: { code?: string } }).error?.code}`)),
      ),
    );
    expect(statuses.filter((s) => s !== "ok")).toEqual([]);
  },
  TEST_TIMEOUT_MS,
);
