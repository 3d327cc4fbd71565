import { env } from "../env";
import { AppError } from "../errors";
import { instance, STORE_TIMEOUT_MS, storeFailed, storeUnavailable, withTimeout } from "./index";

/**
 * Password guessing: failed e-mail logins are limited per (project, e-mail) and per client IP.
 * Every attempt takes one unit from both budgets before the password is checked — so a burst
 * of parallel guesses cannot all pass the check before any failure is counted — and a correct
 * password gives both units back. In effect only failures count: guessing one account does not
 * lock out the project's other players. Fails closed when the store is unavailable.
 */
export type LoginAttempt = { identifiers: [string, string] };

function policies() {
  const windowSeconds = env().LOGIN_FAILURE_WINDOW_SECONDS;
  return [
    { policy: "login-account", limit: env().LOGIN_FAILURES_PER_ACCOUNT, windowSeconds },
    { policy: "login-ip", limit: env().LOGIN_FAILURES_PER_IP, windowSeconds },
  ] as const;
}

async function take(identifiers: [string, string], rate: 1 | -1) {
  return Promise.all(
    policies().map(async (p, i) => {
      try {
        const r = await withTimeout(instance(p.policy, p.limit, p.windowSeconds).limit(identifiers[i] ?? "", { rate }), STORE_TIMEOUT_MS);
        return { ...p, allowed: r.success, resetMs: r.reset };
      } catch (error) {
        storeFailed(error, { ...p, failClosed: true });
        throw storeUnavailable();
      }
    }),
  );
}

/** Reserves one attempt on both budgets, or refuses with 429 naming the exhausted one. */
export async function beginLoginAttempt(o: { projectId: string; email: string; ip: string }): Promise<LoginAttempt> {
  const identifiers: [string, string] = [`${o.projectId}:${o.email}`, o.ip];
  const results = await take(identifiers, 1);
  const refused = results.find((r) => !r.allowed);
  if (refused) {
    const retryAfterSeconds = Math.max(1, Math.ceil((refused.resetMs - Date.now()) / 1000));
    throw new AppError("RATE_LIMITED", {
      message: "Too many failed logins; try again later.",
      headers: { "Retry-After": String(retryAfterSeconds) },
      details: { limit: refused.limit, windowSeconds: refused.windowSeconds, retryAfterSeconds, scope: refused.policy },
    });
  }
  return { identifiers };
}

/** The password was right: the attempt does not count. */
export async function loginSucceeded(attempt: LoginAttempt): Promise<void> {
  await take(attempt.identifiers, -1).catch(() => undefined);
}
