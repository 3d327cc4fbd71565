// The one logger (pino): JSON lines on stdout in production, pretty in `npm run dev`. Shared by
// the launcher (server/cli/start.mjs) and the app (server/log.ts re-exports it), so every line
// has the same shape: time, level, pid, worker, component, msg, and the active trace's ids.
// Levels from LOG_LEVEL (fatal, error, warn, info, debug, trace, silent; default info). Never
// log request bodies, headers, tokens, keys or passwords: the redaction below is a safety net.
import { createRequire } from "node:module";
import { trace } from "@opentelemetry/api";
import pino from "pino";

const holder = globalThis;

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

function levelFromEnv() {
  const level = (process.env.LOG_LEVEL ?? "").toLowerCase();
  return LOG_LEVELS.includes(level) ? level : "info";
}

function numberFromEnv(name, fallback, min, max) {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value >= min && value <= max ? value : fallback;
}

function create() {
  const human = process.env.LOG_FORMAT === "pretty" || (process.env.LOG_FORMAT !== "json" && process.env.NODE_ENV === "development");
  const options = {
    level: levelFromEnv(),
    base: {
      pid: process.pid,
      ...(process.env.GAME_BACKEND_WORKER_INDEX !== undefined ? { worker: Number(process.env.GAME_BACKEND_WORKER_INDEX) } : {}),
    },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: ["authorization", "password", "token", "apiKey", "*.authorization", "*.password", "*.token"], censor: "[redacted]" },
    // The trace this line belongs to (OpenTelemetry, when tracing is on): a log line leads to its trace.
    mixin() {
      const context = trace.getActiveSpan()?.spanContext();
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
      minLength: numberFromEnv("LOG_BUFFER_BYTES", 4096, 0, 65536),
      periodicFlush: numberFromEnv("LOG_FLUSH_MS", 200, 10, 10_000),
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

/** The process's root logger (one per process, however often bundles load this module). */
export function rootLogger() {
  holder.__gameBackendLogger ??= create();
  return holder.__gameBackendLogger;
}

/** A logger whose lines carry `component` (http, db, ratelimit, start…). */
export function logger(component) {
  return rootLogger().child({ component });
}

/**
 * Writes lines whose fields the caller has already serialised (`"name":value,…`), for the one
 * line per request: the same shape as the logger's own lines (level, time, pid, worker,
 * component, the active trace's ids, the fields, msg), built as one string and handed to the
 * logger's buffered destination without pino's per-call object work or a redaction pass — so
 * only for values that are never secret. In pretty mode it goes through the logger.
 */
export function lineWriter(component) {
  const root = rootLogger();
  const destination = holder.__gameBackendLogDestination;
  const worker = process.env.GAME_BACKEND_WORKER_INDEX;
  const bindings = `"pid":${process.pid}${worker !== undefined ? `,"worker":${Number(worker)}` : ""},"component":${JSON.stringify(component)}`;
  const fallback = root.child({ component }, { redact: [] });
  return {
    enabled: (level) => root.isLevelEnabled(level),
    write(level, fields, msg) {
      if (!destination) {
        fallback[level](JSON.parse(`{${fields}}`), msg);
        return;
      }
      const context = trace.getActiveSpan()?.spanContext();
      const ids = context ? `,"trace_id":"${context.traceId}","span_id":"${context.spanId}"` : "";
      destination.write(
        `{"level":"${level}","time":"${new Date().toISOString()}",${bindings}${ids},${fields},"msg":${JSON.stringify(msg)}}\n`,
      );
    },
  };
}
