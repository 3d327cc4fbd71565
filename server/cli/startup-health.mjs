// The launcher's first health check: Next runs instrumentation (migrations, the demo seed) before
// the first request it serves, so the launcher makes that request itself, and "ready" means ready.

/**
 * @typedef {{ ok: true, status: number }
 *   | { ok: false, status: number | null, reason: string }} HealthOutcome
 */

/**
 * Asks GET `url` until it answers 200, for at most `deadlineMs`. A 503 (the database ping missed
 * on a busy machine, the app still starting) or no answer (refused, reset) is tried again after
 * `intervalMs`, each time saying what it waits for; any other answer decides at once (a 500 is a
 * broken start, not a slow one). An attempt still unanswered at the deadline is abandoned (one
 * started just before it still gets `minAttemptMs`). The outcome names the last answer, for the
 * caller's message.
 * @param {string} url
 * @param {{ deadlineMs: number, intervalMs?: number, minAttemptMs?: number, log: (message: string) => void }} options
 * @returns {Promise<HealthOutcome>}
 */
export async function waitUntilHealthy(url, { deadlineMs, intervalMs = 1_000, minAttemptMs = 2_000, log }) {
  const started = Date.now();
  const deadline = started + deadlineMs;
  for (let attempt = 1; ; attempt++) {
    const outcome = await ask(url, Math.max(minAttemptMs, deadline - Date.now()));
    if (outcome.ok) return outcome;
    const transient = outcome.status === 503 || outcome.status === null;
    const left = deadline - Date.now();
    if (!transient || left <= 0) return outcome;
    const wait = Math.min(intervalMs, left);
    log(
      `waiting for the app to become healthy: GET ${new URL(url).pathname} ${outcome.reason} ` +
        `(attempt ${attempt}, ${secondsOf(Date.now() - started)} s since the first; trying again for up to ${secondsOf(left)} s more)`,
    );
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/**
 * One attempt, abandoned after `timeoutMs`.
 * @param {string} url
 * @param {number} timeoutMs
 * @returns {Promise<HealthOutcome>}
 */
async function ask(url, timeoutMs) {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (res.status === 200) {
      await res.body?.cancel();
      return { ok: true, status: 200 };
    }
    const body = (await res.text().catch(() => "")).replace(/\s+/g, " ").slice(0, 200);
    return { ok: false, status: res.status, reason: `answered ${res.status}${body ? ` ${body}` : ""}` };
  } catch (error) {
    const timedOut = error instanceof Error && error.name === "TimeoutError";
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    return { ok: false, status: null, reason: timedOut ? `did not answer within ${secondsOf(timeoutMs)} s` : `got no answer (${cause})` };
  }
}

/** @param {number} ms */
const secondsOf = (ms) => (ms / 1000).toFixed(1);
