import PgBoss from "pg-boss";
import { pool } from "./db";
import { env } from "./env";
import { logger } from "./log";

/**
 * The job queue: pg-boss on the app's own database and pool (no other service; its schema
 * `pgboss` is created by a migration, so instances start it without migrating). A job sent
 * inside `transaction()` joins that transaction, like every `pool()` query: it exists exactly
 * when the change that asked for it committed. Jobs survive restarts; every instance and worker
 * polls, and each job runs once (pg-boss takes jobs with SKIP LOCKED), retried with backoff when
 * its handler throws. On shutdown the launcher stops taking jobs and waits for running ones.
 */
export const QUEUES = {
  /** Work that decides whether and what to mail (a reset request for an address that may not exist). */
  accountEmail: "account-email",
  /** Sending one rendered message over SMTP (or keeping it in the outbox). */
  emailDelivery: "email-delivery",
} as const;

/** A job's data and where it is in its retries (retryCount 0 on the first attempt). */
type Handler = (data: unknown, job: { retryCount: number; retryLimit: number }) => Promise<void>;
const holder = globalThis as typeof globalThis & {
  __gameBackendQueue?: { boss: PgBoss; started: Promise<PgBoss> };
  __gameBackendQueueHandlers?: Map<string, Handler>;
  /** Called by the launcher's drain (server/cli/start.mjs), before the pool closes. */
  __gameBackendStopQueue?: () => Promise<void>;
};

function boss(): PgBoss {
  if (!holder.__gameBackendQueue) {
    const created = new PgBoss({
      db: { executeSql: (text, values) => pool().query(text, values) },
      migrate: false,
      schedule: false,
      supervise: true,
    });
    created.on("error", (error) => logger("queue").error({ reason: error.message }, "queue error"));
    holder.__gameBackendQueue = { boss: created, started: created.start() };
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

/** Starts polling every registered queue in this process (bootstrap). */
export async function startWorkers(): Promise<void> {
  const b = boss();
  holder.__gameBackendStopQueue = () => stopQueue();
  await holder.__gameBackendQueue?.started;
  for (const [queue, handler] of holder.__gameBackendQueueHandlers ?? []) {
    await b.work(queue, { pollingIntervalSeconds: env().QUEUE_POLL_SECONDS, batchSize: 1, includeMetadata: true }, async ([job]) => {
      if (job) await handler(job.data, { retryCount: job.retryCount, retryLimit: job.retryLimit });
    });
  }
}

/** Stops taking jobs and waits up to `timeoutMs` for the running ones (the launcher's drain). */
export async function stopQueue(timeoutMs = 5_000): Promise<void> {
  const q = holder.__gameBackendQueue;
  if (!q) return;
  await q.started.catch(() => undefined);
  await q.boss.stop({ graceful: true, wait: true, timeout: timeoutMs, close: false }).catch(() => undefined);
}
