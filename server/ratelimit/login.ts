import { env } from "../env";
import { AppError } from "../errors";
import { instance, STORE_TIMEOUT_MS, storeFailed, withTimeout } from "./index";

/**
 * Password guessing: failed e-mail logins are counted per (project, e-mail) and per client IP.
 * Only failures count, so a player who types the password right is never slowed down, and a
 * flood against one account does not lock out the project's other players. Fails closed.
 */
type LoginKeys = { account: string; ip: string };

function policies() {
  const windowSeconds = env().LOGIN_FAILURE_WINDOW_SECONDS;
  return [
    { policy: "login-account", limit: env().LOGIN_FAILURES_PER_ACCOUNT, windowSeconds },
    { policy: "login-ip", limit: env().LOGIN_FAILURES_PER_IP, windowSeconds },
  ] as const;
}

function identifiers(keys: LoginKeys): [string, string] {
  return [keys.account, keys.ip];
}

export async function checkLoginAllowed(o: { projectId: string; email: string; ip: string }): Promise<LoginKeys> {
  const keys = { account: `${o.projectId}:${o.email}`, ip: o.ip };
  const ids = identifiers(keys);
  const checks = policies().map(async (p, i) => {
    try {
      const r = await withTimeout(instance(p.policy, p.limit, p.windowSeconds).getRemaining(ids[i] ?? ""), STORE_TIMEOUT_MS);
      return { ...p, remaining: r.remaining, resetMs: r.reset };
    } catch (error) {
      storeFailed(error, { ...p, failClosed: true });
      throw error;
    }
  });
  for (const r of await Promise.all(checks)) {
    if (r.remaining > 0) continue;
    const retryAfterSeconds = Math.max(1, Math.ceil((r.resetMs - Date.now()) / 1000));
    throw new AppError("RATE_LIMITED", {
      message: "Too many failed logins; try again later.",
      headers: { "Retry-After": String(retryAfterSeconds) },
      details: { limit: r.limit, windowSeconds: r.windowSeconds, retryAfterSeconds, scope: r.policy },
    });
  }
  return keys;
}

export async function recordLoginFailure(keys: LoginKeys): Promise<void> {
  const ids = identifiers(keys);
  await Promise.all(
    policies().map(async (p, i) => {
      try {
        await withTimeout(instance(p.policy, p.limit, p.windowSeconds).limit(ids[i] ?? ""), STORE_TIMEOUT_MS);
      } catch (error) {
        storeFailed(error, { ...p, failClosed: true });
      }
    }),
  );
}
