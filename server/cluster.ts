import cluster from "node:cluster";
import { env } from "./env";
import {
  BROADCAST_ANSWER_MARGIN_MS,
  type BroadcastHandler,
  isPrimaryMessage,
  type PrimaryRequest,
  shared,
  type WorkerMessage,
} from "./launcher-contract.mjs";
import { logger } from "./log";

/**
 * The app's side of the launcher's workers (server/cli/start.mjs with WEB_CONCURRENCY > 1): each
 * worker is a process of its own, and the launcher's primary process is the one thing they all
 * talk to, over Node's IPC channel. Two uses:
 * - requests the primary answers (the in-process rate-limit counters it holds for every worker);
 * - broadcasts: a cache dropped on one worker (a revoked API key, a logged-out session) is dropped
 *   on its siblings too, and `broadcast` resolves once they have all done it (or after
 *   CLUSTER_BROADCAST_WAIT_MS: a sibling that does not answer is stuck or dying, and its cache TTL bounds it).
 * Outside a worker (one process, `npm run dev`, tests of the services) both are no-ops.
 *
 * The state lives on globalThis: Next bundles this module into several chunks, and one IPC
 * listener must serve them all. The broadcast handlers are in a map the launcher's worker code
 * reads (Next runs in the launcher's process and realm): it runs them and acknowledges every
 * broadcast, also in a worker where no module has registered a handler yet (nothing is cached
 * there), so a sibling never waits for a worker that has not loaded this module. The names and
 * message shapes both sides use are in server/launcher-contract.mjs.
 */
type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout };
type State = { nextId: number; pending: Map<number, Pending> };
const holder = shared as typeof shared & { __gameBackendCluster?: State };

export function workerIndex(): number | undefined {
  return env().GAME_BACKEND_WORKER_INDEX;
}

/** True in a worker of the launcher (a node:cluster worker: it has an IPC channel to its primary). */
export function inWorker(): boolean {
  return cluster.isWorker && typeof process.send === "function";
}

function state(): State {
  if (holder.__gameBackendCluster) return holder.__gameBackendCluster;
  const created: State = { nextId: 1, pending: new Map() };
  holder.__gameBackendCluster = created;
  if (inWorker()) process.on("message", (message: unknown) => receive(created, message));
  return created;
}

function receive(s: State, message: unknown): void {
  if (!isPrimaryMessage(message)) return;
  const m = message;
  if (m.gb !== "reply") return;
  const pending = s.pending.get(m.id);
  if (!pending) return; // timed out meanwhile
  s.pending.delete(m.id);
  clearTimeout(pending.timer);
  if (m.error !== undefined) pending.reject(new Error(m.error));
  else pending.resolve(m.value);
}

/** process.send with a callback: without one, a closed channel is an 'error' event that ends the process. */
function send(message: WorkerMessage, onError: (error: Error) => void = () => {}): void {
  if (!process.send || !process.connected) {
    onError(new Error("the launcher's IPC channel is closed"));
    return;
  }
  process.send(message, undefined, {}, (error: Error | null) => {
    if (error) onError(error);
  });
}

/**
 * Sends a request to the primary and resolves with its answer. Rejects when the channel is
 * closed or no answer came within `timeoutMs`; like the limiter's own timeout, the decision
 * waits one setImmediate so an answer that arrived but was not read yet still counts.
 */
export function requestPrimary(message: PrimaryRequest, timeoutMs: number): Promise<unknown> {
  const s = state();
  const id = s.nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (!s.pending.delete(id)) return;
        reject(new Error(`the launcher did not answer within ${timeoutMs} ms`));
      });
    }, timeoutMs);
    s.pending.set(id, { resolve, reject, timer });
    send({ ...message, gb: "request", id }, (error) => {
      if (!s.pending.delete(id)) return;
      clearTimeout(timer);
      reject(error);
    });
  });
}

/** What this worker does when a sibling broadcasts `topic` (one handler per topic; the last registration wins). */
export function onBroadcast(topic: string, handler: BroadcastHandler): void {
  holder.__gameBackendBroadcastHandlers ??= new Map();
  holder.__gameBackendBroadcastHandlers.set(topic, handler);
}

/** Runs `topic`'s handler in this process (a message from another instance, server/invalidate.ts); unknown topics are ignored. */
export function runBroadcastHandler(topic: string, payload: unknown): void {
  const handler = holder.__gameBackendBroadcastHandlers?.get(topic);
  if (!handler) return;
  try {
    handler(payload);
  } catch (error) {
    logger("cluster").warn({ topic, reason: (error as Error).message }, `handler of ${topic} failed`);
  }
}

/** Runs `topic`'s handler on every sibling worker; resolves when they all ran it (bounded). The caller has already applied it here. */
export async function broadcast(topic: string, payload: unknown): Promise<void> {
  if (!inWorker()) return;
  await requestPrimary({ op: "broadcast", topic, payload }, env().CLUSTER_BROADCAST_WAIT_MS + BROADCAST_ANSWER_MARGIN_MS).catch(
    (error: unknown) => {
      logger("cluster").warn({ topic, reason: (error as Error).message }, `broadcast of ${topic} not confirmed by every worker`);
    },
  );
}
