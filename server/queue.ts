import PgBoss from "pg-boss";
import { outsideTransaction, pool } from "./db";
import { env } from "./env";
import { shared } from "./launcher-contract.mjs";
import { logger } from "./log";

/**
 * The job queue: pg-boss on the app's own database and pool (no other service; its schema
 * `pgboss` is created by a migration, so instances start it without migrating). A job sent
 * inside `transaction()` joins that transaction, like every `pool()` query: it exists exactly
 * when the change that asked for it committed. Jobs survive restarts; every instance and worker
 * polls, and each job runs once (pg-boss takes jobs with SKIP LOCKED), retried with backoff when
 * its handler throws. On shutdown the launcher stops taking jobs and waits for running ones.
 *
 * Scheduled jobs (SCHEDULES) use pg-boss's cron: every instance runs its timekeeper, which every
 * 30 s takes pg-boss's cluster-wide cron slot (one UPDATE of pgboss.version.cron_on, so one
 * instance per slot) and sends each due schedule's job with a singleton key per minute, so a cron
 * fires once per cluster however many instances run. Their queues are "stately" (migration
 * 20261205020000): at most one job waiting and one running, so a slow run never piles up.
 * A minute in which no instance ran sends nothing; the jobs are written to catch up on their
 * next run (see docs/operating/workers.md).
 */
export const QUEUES = {
  /** Work that decides whether and what to mail (a reset request for an address that may not exist). */
  accountEmail: "account-email",
  /** Sending one rendered message over SMTP (or keeping it in the outbox). */
  emailDelivery: "email-delivery",
  /** The instance's mail to operators (project invites), sent straight over SMTP, never kept in a project's e-mail log. */
  operatorEmail: "operator-email",
  /** Hourly: prunes ended sessions, used refresh tokens, Idempotency-Key records, usage rows and the webhook outbox. */
  housekeeping: "housekeeping",
  /** Every minute: closes ended leaderboard periods and pays their rewards. */
  periodClose: "leaderboard-period-close",
  /** Every minute: announces timed bans that ran out (player.unbanned, expired). */
  banExpiry: "player-ban-expiry",
  /** Every minute: fetches store refunds (Google voided purchases, Steam chargebacks) of projects whose poll is due. */
  storeRefundPoll: "store-refund-poll",
} as const;

/** Cron expressions (UTC) of the scheduled queues; registered (upserted) by every instance at start. */
export const SCHEDULES: Record<string, string> = {
  [QUEUES.housekeeping]: "7 * * * *",
  [QUEUES.periodClose]: "* * * * *",
  [QUEUES.banExpiry]: "* * * * *",
  [QUEUES.storeRefundPoll]: "* * * * *",
};

/** A job's data and where it is in its retries (retryCount 0 on the first attempt). */
type Handler = (data: unknown, job: { retryCount: number; retryLimit: number }) => Promise<void>;
const holder = shared as typeof shared & {
  __gameBackendQueue?: { boss: PgBoss; started: Promise<PgBoss> };
  __gameBackendQueueHandlers?: Map<string, Handler>;
};

function boss(): PgBoss {
  if (!holder.__gameBackendQueue) {
    const created = new PgBoss({
      db: { executeSql: (text, values) => pool().query(text, values) },
      migrate: false,
      schedule: true,
      supervise: true,
    });
    created.on("error", (error) => logger("queue").error({ reason: error.message }, "queue error"));
    // Started outside any transaction: pg-boss's timers (supervisor, cron, polling) inherit the async
    // context they start in, and one started by the first enqueue inside a transaction() ran all
    // its later queries on that transaction's connection, long after it was released to the pool
    // (found by the pool's one-statement-at-a-time check: "cron_on" sent beside a fetch).
    holder.__gameBackendQueue = { boss: created, started: outsideTransaction(() => created.start()) };
  }
  return holder.__gameBackendQueue.boss;
}

/** Sends a job (inside `transaction()`: part of it). */
export async function enqueue(queue: string, data: object, options: PgBoss.SendOptions = {}): Promise<void> {
  const b = boss();
  await holder.__gameBackendQueue?.started;
  await b.send(queue, data, options);
}

/** Registers the handler of a queue; `startWorkers` starts polling for all of them. */
export function handle(queue: string, handler: Handler): void {
  holder.__gameBackendQueueHandlers ??= new Map();
  holder.__gameBackendQueueHandlers.set(queue, handler);
}

/** Starts polling every registered queue in this process (bootstrap), and registers the schedules. */
export function startWorkers(): Promise<void> {
  // The polling loops, like the timers above, must not run inside a caller's transaction.
  return outsideTransaction(() => registerWorkers());
}

async function registerWorkers(): Promise<void> {
  const b = boss();
  holder.__gameBackendStopQueue = () => stopQueue();
  await holder.__gameBackendQueue?.started;
  for (const [queue, cron] of Object.entries(SCHEDULES)) {
    // An upsert by name: every instance registering them is harmless; a changed cron replaces the old one.
    await b.schedule(queue, cron, {}, { tz: "UTC", retryLimit: 2, retryDelay: 30, expireInSeconds: 15 * 60 });
  }
  for (const [queue, handler] of holder.__gameBackendQueueHandlers ?? []) {
    let worker = "";
    worker = await b.work(
      queue,
      { pollingIntervalSeconds: env().QUEUE_POLL_SECONDS, batchSize: 1, includeMetadata: true },
      async ([job]) => {
        if (!job) return;
        try {
          await handler(job.data, { retryCount: job.retryCount, retryLimit: job.retryLimit });
        } finally {
          // pg-boss waits the polling interval after every fetch, a job found or not: one job per
          // QUEUE_POLL_SECONDS (2 s), so ten sign-ups' codes took 20 s to go out. A queue that had a
          // job may have more: the next fetch comes at once, and only an empty one waits.
          if (worker) b.notifyWorker(worker);
        }
      },
    );
  }
}

/** Stops taking jobs and waits up to `timeoutMs` for the running ones (the launcher's drain). */
export async function stopQueue(timeoutMs = 5_000): Promise<void> {
  const q = holder.__gameBackendQueue;
  if (!q) return;
  await q.started.catch(() => undefined);
  await q.boss.stop({ graceful: true, wait: true, timeout: timeoutMs, close: false }).catch(() => undefined);
}
