// The one logger (pino): JSON lines on stdout in production, pretty in `npm run dev`. Shared by
// the launcher (server/cli/start.mjs) and the app (server/log.ts re-exports it), so every line
// has the same shape: time, level, pid, worker, component, msg, and the active trace's ids.
// Levels from LOG_LEVEL (fatal, error, warn, info, debug, trace, silent; default info). Never
// log request bodies, headers, tokens, keys or passwords: the redaction below is a safety net.
import { createRequire } from "node:module";
import { isSpanContextValid, TraceFlags, trace } from "@opentelemetry/api";
import pino from "pino";
import { z } from "zod";
import { ZEnv } from "./env-schema.mjs";

/**
 * The active span's ids when it belongs to a trace that is exported: not Next.js' placeholder span
 * (an invalid context: its spans are no-ops, server/telemetry.ts) nor a caller's unsampled one.
 */
function sampledSpanContext() {
  const context = trace.getActiveSpan()?.spanContext();
  return context && context.traceFlags & TraceFlags.SAMPLED && isSpanContextValid(context) ? context : undefined;
}

/**
 * @typedef {"fatal" | "error" | "warn" | "info" | "debug" | "trace"} Level
 * @typedef {{ __gameBackendLogger?: import("pino").Logger, __gameBackendLogDestination?: import("pino").DestinationStream & { flushSync(): void } }} LogGlobals
 */
const holder = /** @type {typeof globalThis & LogGlobals} */ (globalThis);

export const LOG_LEVELS = /** @type {const} */ (["fatal", "error", "warn", "info", "debug", "trace", "silent"]);

/**
 * The logging variables, by the shared schema (server/env-schema.mjs). The logger must write even
 * when the environment is bad (that is what it reports): a bad value falls back to its default
 * here, and the launcher's and the app's own parse of the same schema refuses it.
 */
const ZLogEnv = z.object({
  ...ZEnv.pick({ LOG_LEVEL: true, LOG_FORMAT: true, LOG_BUFFER_BYTES: true, LOG_FLUSH_MS: true, GAME_BACKEND_WORKER_INDEX: true }).shape,
  // Unset is not development here: only an explicit NODE_ENV=development (npm run dev) logs pretty lines.
  NODE_ENV: ZEnv.shape.NODE_ENV.unwrap().optional(),
});
function logEnv() {
  /** @type {Record<string, unknown>} */
  const values = {};
  for (const [name, field] of Object.entries(ZLogEnv.shape)) {
    const raw = process.env[name];
    const parsed = field.safeParse(raw === "" ? undefined : raw);
    values[name] = parsed.success ? parsed.data : field.parse(undefined);
  }
  return /** @type {import("zod").output<typeof ZLogEnv>} */ (values);
}

function create() {
  const config = logEnv();
  const human = config.LOG_FORMAT === "pretty" || (config.LOG_FORMAT !== "json" && config.NODE_ENV === "development");
  /** @type {import("pino").LoggerOptions<never, boolean>} */
  const options = {
    level: config.LOG_LEVEL,
    base: {
      pid: process.pid,
      ...(config.GAME_BACKEND_WORKER_INDEX !== undefined ? { worker: config.GAME_BACKEND_WORKER_INDEX } : {}),
    },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: ["authorization", "password", "token", "apiKey", "*.authorization", "*.password", "*.token"], censor: "[redacted]" },
    // The trace this line belongs to (OpenTelemetry, when tracing is on): a log line leads to its trace.
    mixin() {
      const context = sampledSpanContext();
      return context ? { trace_id: context.traceId, span_id: context.spanId } : {};
    },
  };
  if (!human) {
    // Asynchronous writes: under load, lines written while one write is in flight go out together
    // in the next, instead of one write system call per line. Whatever is still buffered when the
    // process exits is written synchronously on the way out.
    // And lines are gathered up to LOG_BUFFER_BYTES before a write (one write system call, on
    // libuv's thread pool, per ~20 access lines instead of one per line or two under load), and
    // written at least every LOG_FLUSH_MS when traffic is low. A kill -9 loses at most that much.
    const destination = pino.destination({
      dest: 1,
      sync: false,
      minLength: config.LOG_BUFFER_BYTES,
      periodicFlush: config.LOG_FLUSH_MS,
    });
    holder.__gameBackendLogDestination = destination;
    process.on("exit", () => {
      try {
        destination.flushSync();
      } catch {
        // not open yet, or already closed: nothing buffered to lose
      }
    });
    return pino(options, destination);
  }
  // pino-pretty as a synchronous stream, not a transport: no worker thread inside Next's server.
  const pretty = createRequire(import.meta.url)("pino-pretty");
  return pino(options, pretty({ sync: true, ignore: "pid", translateTime: "HH:MM:ss.l" }));
}

/**
 * The process's root logger (one per process, however often bundles load this module).
 * @returns {import("pino").Logger}
 */
export function rootLogger() {
  holder.__gameBackendLogger ??= create();
  return holder.__gameBackendLogger;
}

/**
 * A logger whose lines carry `component` (http, db, ratelimit, start…).
 * @param {string} component
 * @returns {import("pino").Logger}
 */
export function logger(component) {
  return rootLogger().child({ component });
}

/**
 * Writes lines whose fields the caller has already serialised (`"name":value,…`), for the one
 * line per request: the same shape as the logger's own lines (level, time, pid, worker,
 * component, the active trace's ids, the fields, msg), built as one string and handed to the
 * logger's buffered destination without pino's per-call object work or a redaction pass — so
 * only for values that are never secret. In pretty mode it goes through the logger.
 * @param {string} component
 * @returns {{ enabled(level: Level): boolean, write(level: Level, fields: string, msg: string): void }}
 */
export function lineWriter(component) {
  const root = rootLogger();
  const destination = holder.__gameBackendLogDestination;
  const worker = logEnv().GAME_BACKEND_WORKER_INDEX;
  const bindings = `"pid":${process.pid}${worker !== undefined ? `,"worker":${worker}` : ""},"component":${JSON.stringify(component)}`;
  const fallback = root.child({ component }, { redact: [] });
  return {
    enabled: (level) => root.isLevelEnabled(level),
    write(level, fields, msg) {
      if (!destination) {
        fallback[level](JSON.parse(`{${fields}}`), msg);
        return;
      }
      const context = sampledSpanContext();
      const ids = context ? `,"trace_id":"${context.traceId}","span_id":"${context.spanId}"` : "";
      destination.write(
        `{"level":"${level}","time":"${new Date().toISOString()}",${bindings}${ids},${fields},"msg":${JSON.stringify(msg)}}\n`,
      );
    },
  };
}
