import { AppError } from "../errors";
import { instance, storeFailed, storeTimeoutMs, storeUnavailable, withTimeout } from "../ratelimit";

/**
 * How many wrong current passwords an operator's dashboard session may send to "change
 * password" per window, so a stolen session cannot guess the password without limit. Per
 * operator (a session guessing from many addresses is still one operator). Each check takes a
 * unit before the password is hashed and a right password gives it back, so only failures
 * count; a refused check gives back its unit too (it checked nothing). Fails closed: with the
 * store down the change is refused (503), never unlimited.
 */
export const PASSWORD_CHANGE_FAILURES = 5;
export const PASSWORD_CHANGE_WINDOW_SECONDS = 15 * 60;
const POLICY = "operator-password-change";

async function take(operatorId: string, rate: 1 | -1): Promise<{ allowed: boolean; resetMs: number }> {
  try {
    const limiter = instance(POLICY, PASSWORD_CHANGE_FAILURES, PASSWORD_CHANGE_WINDOW_SECONDS, { refundable: true });
    const r = await withTimeout(limiter.limit(operatorId, { rate }), storeTimeoutMs());
    return { allowed: r.success, resetMs: r.reset };
  } catch (error) {
    storeFailed(error, {
      policy: POLICY,
      limit: PASSWORD_CHANGE_FAILURES,
      windowSeconds: PASSWORD_CHANGE_WINDOW_SECONDS,
      failClosed: true,
    });
    throw storeUnavailable();
  }
}

/** Takes one try of the operator's budget, or refuses with 429 RATE_LIMITED (Retry-After) when it is spent. */
export async function beginPasswordCheck(operatorId: string): Promise<void> {
  const { allowed, resetMs } = await take(operatorId, 1);
  if (allowed) return;
  await take(operatorId, -1).catch(() => undefined);
  const retryAfterSeconds = Math.max(1, Math.ceil((resetMs - Date.now()) / 1000));
  throw new AppError("RATE_LIMITED", {
    message: "Too many wrong current passwords; try again later.",
    headers: { "Retry-After": String(retryAfterSeconds) },
    details: {
      limit: PASSWORD_CHANGE_FAILURES,
      windowSeconds: PASSWORD_CHANGE_WINDOW_SECONDS,
      retryAfterSeconds,
      scope: POLICY,
    },
  });
}

/** The current password was right: the try does not count. */
export async function passwordCheckPassed(operatorId: string): Promise<void> {
  await take(operatorId, -1).catch(() => undefined);
}
