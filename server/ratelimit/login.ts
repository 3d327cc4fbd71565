import { createHmac } from "node:crypto";
import { pool } from "../db";
import { env } from "../env";
import { AppError } from "../errors";
import { hashGateFull, refuseStranger } from "../passwords";
import { credentialTimeoutMs, instance, storeFailed, storeUnavailable, withTimeout } from "./index";
import { ipSubject } from "./ip";

/**
 * Password guessing. Failed e-mail logins are counted in three budgets per window
 * (LOGIN_FAILURE_WINDOW_SECONDS):
 * - per (account, client IP): an attacker's address is cut off from that account, while the
 *   owner, from an address that has not been failing, still signs in;
 * - per client IP, across accounts: one address guessing many accounts;
 * - per account, across addresses: bounds distributed guessing. When it is spent, the account
 *   still signs in from addresses it signed in from with the right password in the last 30
 *   days (login_known_ips) and from nowhere else until the window ends.
 * Every attempt takes its units before the password is checked — a burst of parallel guesses
 * cannot all pass the check before any failure is counted — and a correct password gives them
 * back, so in effect only failures count. These budgets fail closed and stay on with
 * RATE_LIMITS=off.
 */
export type LoginAttempt = {
  taken: Array<{ policy: string; limit: number; windowSeconds: number; identifier: string }>;
  /**
   * Whether this is a known good client: the account signed in with the right password from this
   * address (per /64 for IPv6) in the last 30 days. Asked lazily (a database query), remembered.
   */
  isKnown: () => Promise<boolean>;
  /** The client address's subject (per /64 for IPv6): the hashing queue's fair share is per source. */
  source: string;
};
type Budget = LoginAttempt["taken"][number];

/** The pseudo project operators' sign-ins are counted under (server/identity/operators.ts). */
const OPERATORS = "operators";

const KNOWN_IP_DAYS = 30;

function budgets(o: { projectId: string; email: string; ip: string }) {
  const windowSeconds = env().LOGIN_FAILURE_WINDOW_SECONDS;
  const account = `${o.projectId}:${o.email}`;
  const client = ipSubject(o.ip);
  return {
    accountIp: {
      policy: "login-account-ip",
      limit: env().LOGIN_FAILURES_PER_ACCOUNT_IP,
      windowSeconds,
      identifier: `${account}:${client}`,
    },
    ip: { policy: "login-ip", limit: env().LOGIN_FAILURES_PER_IP, windowSeconds, identifier: client },
    account: { policy: "login-account", limit: env().LOGIN_FAILURES_PER_ACCOUNT, windowSeconds, identifier: account },
  };
}

async function take(budget: Budget, rate: 1 | -1): Promise<{ allowed: boolean; resetMs: number }> {
  try {
    const r = await withTimeout(
      instance(budget.policy, budget.limit, budget.windowSeconds, { refundable: true }).limit(budget.identifier, { rate }),
      credentialTimeoutMs(),
    );
    return { allowed: r.success, resetMs: r.reset };
  } catch (error) {
    storeFailed(error, { ...budget, failClosed: true });
    throw storeUnavailable();
  }
}

function refused(budget: Budget, resetMs: number, message: string): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil((resetMs - Date.now()) / 1000));
  return new AppError("RATE_LIMITED", {
    message,
    headers: { "Retry-After": String(retryAfterSeconds) },
    details: { limit: budget.limit, windowSeconds: budget.windowSeconds, retryAfterSeconds, scope: budget.policy },
  });
}

/**
 * How a known address is stored: keyed (HMAC with the server's JWT secret), because a plain
 * hash of an IPv4 address is reversed by hashing all 2^32 candidates. Per /64 for IPv6, like
 * the budgets, so a device whose privacy address rotates stays known.
 */
const ipHash = (ip: string) =>
  createHmac("sha256", env().JWT_SECRET)
    .update(`login-known-ip:${ipSubject(ip)}`)
    .digest();

async function isKnownIp(o: { projectId: string; email: string; ip: string }): Promise<boolean> {
  if (o.projectId === OPERATORS) return isKnownOperatorIp(o);
  const { rowCount } = await pool().query({
    name: "login-known-ip",
    text: `SELECT 1 FROM login_known_ips k JOIN players p ON p.id = k.player_id
            WHERE p.project_id = $1 AND p.email = $2 AND k.ip_hash = $3 AND k.last_success_at > now() - make_interval(days => $4)`,
    values: [o.projectId, o.email, ipHash(o.ip), KNOWN_IP_DAYS],
  });
  return (rowCount ?? 0) > 0;
}

/**
 * Operators keep no known-address table: an address is known when a dashboard session was
 * started from it (per /64 for IPv6) in the last KNOWN_IP_DAYS — each session row records the
 * address of the sign-in that started it.
 */
async function isKnownOperatorIp(o: { email: string; ip: string }): Promise<boolean> {
  const { rows } = await pool().query<{ ip: string }>({
    name: "login-known-operator-ip",
    text: `SELECT DISTINCT s.ip FROM operator_sessions s JOIN operators o ON o.id = s.operator_id
            WHERE o.email = $1 AND s.ip IS NOT NULL AND s.created_at > now() - make_interval(days => $2)
            LIMIT 100`,
    values: [o.email, KNOWN_IP_DAYS],
  });
  const subject = ipSubject(o.ip);
  return rows.some((r) => ipSubject(r.ip) === subject);
}

function once(check: () => Promise<boolean>): () => Promise<boolean> {
  let answer: Promise<boolean> | undefined;
  return () => {
    answer ??= check().catch(() => false);
    return answer;
  };
}

/** A 503: the limiter store is down or slow, or the hashing gate refused. */
const storeDown = (error: unknown) => error instanceof AppError && error.code === "SERVICE_UNAVAILABLE";

/** Gives units back: the attempt was refused (checked no password) or the password was right. */
async function giveBack(taken: Budget[]): Promise<void> {
  await Promise.all(taken.map((budget) => take(budget, -1))).catch(() => undefined);
}

/**
 * Reserves an attempt on every budget, or refuses with 429 naming the exhausted one. A refused
 * attempt gives back what it took: it checked no password, so it is no failure (a brute-forcer
 * keeps the count at the limit; a burst of correct logins cannot push it over and lock the
 * address out).
 */
export async function beginLoginAttempt(o: { projectId: string; email: string; ip: string }): Promise<LoginAttempt> {
  const isKnown = once(() => isKnownIp(o));
  // Password checks are being refused (a flood): a stranger is refused before its budgets.
  if (hashGateFull() && !(await isKnown())) refuseStranger();
  try {
    return { taken: await takeLoginBudgets(o, isKnown), isKnown, source: ipSubject(o.ip) };
  } catch (error) {
    // The store is down or missed RATE_LIMIT_CREDENTIAL_TIMEOUT_MS: strangers are refused (503),
    // a known good client goes on to the (bounded) password check, counted in no budget.
    if (storeDown(error) && (await isKnown())) return { taken: [], isKnown, source: ipSubject(o.ip) };
    throw error;
  }
}

async function takeLoginBudgets(o: { projectId: string; email: string; ip: string }, isKnown: () => Promise<boolean>): Promise<Budget[]> {
  const b = budgets(o);
  const [accountIp, ip] = await Promise.all([take(b.accountIp, 1), take(b.ip, 1)]);
  if (!accountIp.allowed || !ip.allowed) {
    await giveBack([b.accountIp, b.ip]);
    if (!accountIp.allowed)
      throw refused(b.accountIp, accountIp.resetMs, "Too many failed logins for this account from here; try again later.");
    throw refused(b.ip, ip.resetMs, "Too many failed logins from this address; try again later.");
  }
  const account = await take(b.account, 1);
  if (account.allowed) return [b.accountIp, b.ip, b.account];
  await giveBack([b.account]);
  if (await isKnown()) return [b.accountIp, b.ip];
  await giveBack([b.accountIp, b.ip]);
  throw refused(b.account, account.resetMs, "Too many failed logins for this account; try again later from a known device.");
}

/**
 * The password was right: the attempt does not count, and this address becomes known for the
 * account. The same statement forgets the player's addresses unused for KNOWN_IP_DAYS, so the
 * table holds each player's recent addresses only (never the row being refreshed: one
 * statement may not touch a row twice).
 */
export async function loginSucceeded(attempt: LoginAttempt, o: { playerId: string; ip: string }): Promise<void> {
  await Promise.all([
    giveBack(attempt.taken),
    pool().query({
      name: "login-known-ip-upsert",
      text: `WITH forgotten AS (
               DELETE FROM login_known_ips
                WHERE player_id = $1 AND ip_hash <> $2 AND last_success_at <= now() - make_interval(days => $3))
             INSERT INTO login_known_ips (player_id, ip_hash) VALUES ($1, $2)
             ON CONFLICT (player_id, ip_hash) DO UPDATE SET last_success_at = now()`,
      values: [o.playerId, ipHash(o.ip), KNOWN_IP_DAYS],
    }),
  ]);
}

/**
 * Registrations per client IP (REGISTRATIONS_PER_IP per LOGIN_FAILURE_WINDOW_SECONDS): each
 * hashes a password, and EMAIL_TAKEN answers tell which addresses exist. Fails closed.
 */
export async function countRegistration(o: { projectId: string; ip: string }): Promise<{ giveBack: () => Promise<void> }> {
  const budget = {
    policy: "register-ip",
    limit: env().REGISTRATIONS_PER_IP,
    windowSeconds: env().LOGIN_FAILURE_WINDOW_SECONDS,
    identifier: `${o.projectId}:${ipSubject(o.ip)}`,
  };
  const r = await take(budget, 1);
  if (!r.allowed) throw refused(budget, r.resetMs, "Too many registrations from this address; try again later.");
  // A registration the hashing gate refused (503, nothing done) is no registration: its retry must not pay twice.
  return { giveBack: () => giveBack([budget]) };
}

/**
 * Checks the password of an attempt through the hashing gate, the known good client first in its
 * queue. Refused by the gate (503, nothing hashed), the attempt gives its units back: it checked
 * no password, so it is no failure.
 */
export async function checkPassword(
  attempt: LoginAttempt,
  check: (o: { isKnown: () => Promise<boolean>; source: string }) => Promise<boolean>,
): Promise<boolean> {
  try {
    return await check({ isKnown: attempt.isKnown, source: attempt.source });
  } catch (error) {
    if (storeDown(error)) await giveBack(attempt.taken);
    throw error;
  }
}

/**
 * A right password that is not a player's sign-in (an operator's login, a player confirming
 * their password to delete the account): the attempt does not count, and no address is
 * remembered (operators have no known-address table; a deleted player needs none).
 */
export async function passwordConfirmed(attempt: LoginAttempt): Promise<void> {
  await giveBack(attempt.taken);
}

/**
 * Requests for e-mailed codes (password reset, verification resend): per account
 * (CODE_REQUESTS_PER_ACCOUNT, counted for unknown addresses too, so the answer tells nothing)
 * and per client IP (CODE_REQUESTS_PER_IP), per LOGIN_FAILURE_WINDOW_SECONDS. Fails closed.
 */
export async function countCodeRequest(o: { projectId: string; account: string; ip: string }): Promise<void> {
  const windowSeconds = env().LOGIN_FAILURE_WINDOW_SECONDS;
  const ip: Budget = {
    policy: "code-request-ip",
    limit: env().CODE_REQUESTS_PER_IP,
    windowSeconds,
    identifier: `${o.projectId}:${ipSubject(o.ip)}`,
  };
  const account: Budget = {
    policy: "code-request-account",
    limit: env().CODE_REQUESTS_PER_ACCOUNT,
    windowSeconds,
    identifier: `${o.projectId}:${o.account}`,
  };
  const byIp = await take(ip, 1);
  if (!byIp.allowed) throw refused(ip, byIp.resetMs, "Too many code requests from this address; try again later.");
  const byAccount = await take(account, 1);
  if (!byAccount.allowed) throw refused(account, byAccount.resetMs, "Too many code requests for this account; try again later.");
}
