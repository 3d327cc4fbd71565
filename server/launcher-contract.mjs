// What the launcher (server/cli/start.mjs) and the app share by name, in one place: the values
// they leave for each other on globalThis (Next runs in the launcher's process and realm, and
// bundles app modules into several chunks, so a module-level variable would not be shared), and
// the IPC messages between the launcher's primary and its workers. Both sides import this file;
// a name or shape changed here fails the type check (npm run check) on the side that did not follow.

/**
 * The values on globalThis the launcher and the app both touch. Who sets each, who reads it:
 * @typedef {object} SharedGlobals
 * @property {boolean} [__gameBackendDraining] Set by the launcher when a stop begins; the app's
 *   readiness (server/health.ts) answers "draining" from then on.
 * @property {string} [__gameBackendObserverKey] This process's secret (server/cli/edge.mjs), sent
 *   on /api/health by the launcher when the caller may see the full report; the app compares it.
 * @property {() => Promise<void>} [__gameBackendStopQueue] Set by the app's job queue
 *   (server/queue.ts, wrapped by the webhook dispatcher); the launcher calls it on stop.
 * @property {{ shutdown(): Promise<void> }} [__gameBackendOtel] The app's OpenTelemetry SDK
 *   (server/telemetry.ts), when tracing is on; the launcher flushes it on stop.
 * @property {{ pool: { end(): Promise<void> } }} [__gameBackendDb] The app's database pool
 *   (server/db.ts); the launcher closes it on stop, before the embedded Postgres stops.
 * @property {Map<string, BroadcastHandler>} [__gameBackendBroadcastHandlers] What each broadcast
 *   topic does in this worker: registered by the app (server/cluster.ts, onBroadcast), run by the
 *   launcher's worker code when a sibling's broadcast arrives.
 */

/** @typedef {(payload: unknown) => void} BroadcastHandler */

/** globalThis, with the names the launcher and the app share on it. */
export const shared = /** @type {typeof globalThis & SharedGlobals} */ (globalThis);

// ---------------------------------------------------------------------------------------------
// IPC between the primary and its workers (WEB_CONCURRENCY > 1). Every message of ours carries
// `gb` (node:cluster's own messages and prom-client's never do).

/**
 * The primary waits CLUSTER_BROADCAST_WAIT_MS (server/env-schema.mjs) for every sibling's
 * acknowledgement of a broadcast; a worker waits that + this for the primary's answer.
 */
export const BROADCAST_ANSWER_MARGIN_MS = 500;

/**
 * A worker asks the primary: the rate-limit counters it holds for every worker (a script of the
 * limiter run on them, or `get`: a key's count), or a broadcast to its siblings.
 * @typedef {{ op: "ratelimit", kind: "increment" | "read" | "share-then-project" | "get", keys: string[], args: unknown[] }
 *   | { op: "broadcast", topic: string, payload: unknown }} PrimaryRequest
 */

/**
 * Worker → primary.
 * @typedef {(PrimaryRequest & { gb: "request", id: number })
 *   | { gb: "ack", id: number }
 *   | { gb: "ready" }} WorkerMessage
 */

/**
 * Primary → worker: the answer to a request (`value`, or `error`), or a sibling's broadcast.
 * @typedef {{ gb: "reply", id: number, value?: unknown, error?: string }
 *   | { gb: "broadcast", id: number, topic: string, payload: unknown }} PrimaryMessage
 */

/**
 * Launcher → a parent that spawned it with an IPC channel (test harnesses, process managers):
 * ready, whatever LOG_LEVEL hides.
 * @typedef {{ gb: "launcher-ready" }} LauncherMessage
 */

/** @param {unknown} message */
const carriesGb = (message) =>
  typeof message === "object" && message !== null && typeof (/** @type {{ gb?: unknown }} */ (message).gb) === "string";

/**
 * A worker's message to the primary (it carries `gb`); anything else is node:cluster's or
 * prom-client's. The shape behind `gb` is trusted: both ends are this code base.
 * @param {unknown} message
 * @returns {message is WorkerMessage}
 */
export function isWorkerMessage(message) {
  return carriesGb(message);
}

/**
 * The primary's message to a worker (it carries `gb`), as isWorkerMessage.
 * @param {unknown} message
 * @returns {message is PrimaryMessage}
 */
export function isPrimaryMessage(message) {
  return carriesGb(message);
}
