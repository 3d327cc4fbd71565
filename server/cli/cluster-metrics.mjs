// Prometheus metrics of the whole instance, served by the launcher at GET /api/metrics before
// Next sees the request (docs/operating/observability.md lists every metric). prom-client is one
// module instance per process, shared by the launcher and the app's route code (it is a server
// external package in next.config.ts), so both register into its default registry. With
// WEB_CONCURRENCY > 1 the worker that receives the scrape asks the primary, which collects every
// worker's registry over the cluster IPC channel (prom-client's AggregatorRegistry) and answers
// the sum: one scrape reports the instance, not one random worker.
import cluster from "node:cluster";
import client from "prom-client";
import { logger } from "../log.mjs";
import { observerRefusal, replyError } from "./edge.mjs";

/**
 * The launcher's own IPC for scrapes (worker → primary → worker), beside prom-client's.
 * @typedef {{ type: typeof REQUEST, id: number }} ScrapeRequest
 * @typedef {{ type: typeof ANSWER, id: number, text?: string, error?: string }} ScrapeAnswer
 * @typedef {import("node:http").IncomingMessage} Request
 * @typedef {import("node:http").ServerResponse<Request>} Response
 */
const REQUEST = "gb:metrics-request";
const ANSWER = "gb:metrics-answer";

/**
 * @param {unknown} message
 * @param {string} type
 * @returns {boolean}
 */
const isOfType = (message, type) =>
  typeof message === "object" && message !== null && /** @type {{ type?: unknown }} */ (message).type === type;

/**
 * In a worker or the single process: default process metrics, the in-flight gauge, the scrape endpoint.
 * @param {{ clustered: boolean, enabled: boolean }} options `enabled`: METRICS is not `off`.
 * @returns {{ track(res: Response): void, serve(req: Request, res: Response): boolean }}
 */
export function workerMetrics({ clustered, enabled }) {
  // METRICS=off: nothing recorded, and /api/metrics is left to the app (its JSON 404).
  if (!enabled) return { track() {}, serve: () => false };
  client.collectDefaultMetrics({ eventLoopMonitoringPrecision: 20 });
  // Gauges whose names end in _total (promtool check metrics refuses them); the per-type
  // nodejs_active_handles / _requests / _resources beside them carry the same numbers.
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) {
    client.register.removeSingleMetric(name);
  }
  const inFlight = new client.Gauge({
    name: "gb_http_requests_in_flight",
    help: "HTTP requests received and not yet answered (every path, the launcher's own answers included).",
  });
  /** @type {Map<number, (answer: ScrapeAnswer) => void>} */
  const pending = new Map();
  let nextId = 0;
  if (clustered) {
    // Constructing one installs prom-client's worker side: it answers the primary's collection requests.
    new client.AggregatorRegistry();
    process.on("message", (/** @type {unknown} */ message) => {
      if (!isOfType(message, ANSWER)) return;
      const answer = /** @type {ScrapeAnswer} */ (message);
      pending.get(answer.id)?.(answer);
      pending.delete(answer.id);
    });
  }
  /** @returns {Promise<string>} */
  const collect = () => {
    if (!clustered) return client.register.metrics();
    return new Promise((resolve, reject) => {
      const id = ++nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error("the primary did not answer within 10 s"));
      }, 10_000);
      pending.set(id, (answer) => {
        clearTimeout(timer);
        if (answer.error) reject(new Error(answer.error));
        else resolve(answer.text ?? "");
      });
      /** @type {ScrapeRequest} */
      const request = { type: REQUEST, id };
      process.send?.(request, undefined, {}, () => {});
    });
  };
  return {
    /** Counts the request as in flight until its response closes. */
    track(res) {
      inFlight.inc();
      res.once("close", () => inFlight.dec());
    },
    /** Answers GET /api/metrics (true), or leaves the request to Next (false). */
    serve(req, res) {
      const url = req.url ?? "";
      if (!url.startsWith("/api/metrics") || (url.length > 12 && url[12] !== "?")) return false;
      if (req.method !== "GET" && req.method !== "HEAD") {
        replyError(res, "METHOD_NOT_ALLOWED", "Use GET.", { Allow: "GET, HEAD" });
        return true;
      }
      const refusal = refusalOf(req);
      if (refusal) {
        replyError(
          res,
          refusal,
          refusal === "MISSING_TOKEN" ? "Send Authorization: Bearer <METRICS_TOKEN>." : "The metrics token is wrong.",
          {
            "WWW-Authenticate": 'Bearer realm="metrics"',
          },
        );
        return true;
      }
      collect().then(
        (text) => {
          res.writeHead(200, { "Content-Type": client.register.contentType, "Cache-Control": "no-store" });
          res.end(req.method === "HEAD" ? undefined : text);
        },
        (error) => {
          logger("metrics").error({ reason: error.message }, "collection failed");
          res.writeHead(503, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" });
          res.end(
            JSON.stringify({ error: { code: "SERVICE_UNAVAILABLE", message: "Metrics could not be collected; retry.", details: {} } }),
          );
        },
      );
      return true;
    },
  };
}

/**
 * METRICS_TOKEN set: its bearer token only. Unset: local probes only — the socket's address is
 * loopback (never X-Forwarded-For) and no proxy header is present, so a reverse proxy on the
 * same host does not make every scrape local (edge.mjs, isLocalProbe).
 */
export const refusalOf = observerRefusal;

/** In the primary: answers a worker's scrape with every worker's metrics, aggregated. */
export function primaryMetrics() {
  const aggregator = new client.AggregatorRegistry();
  cluster.on("message", (worker, /** @type {unknown} */ message) => {
    if (!isOfType(message, REQUEST)) return;
    const { id } = /** @type {ScrapeRequest} */ (message);
    // With a callback: a channel that closed meanwhile (the worker died) is not an 'error' event.
    /** @param {{ text: string } | { error: string }} answer */
    const send = (answer) => worker.isConnected() && worker.send({ type: ANSWER, id, ...answer }, undefined, {}, () => {});
    aggregator.clusterMetrics().then(
      (text) => send({ text }),
      (/** @type {unknown} */ error) => send({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}
