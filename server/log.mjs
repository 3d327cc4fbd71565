// The one logger (pino): JSON lines on stdout in production, pretty in `npm run dev`. Shared by
// the launcher (server/cli/start.mjs) and the app (server/log.ts re-exports it), so every line
// has the same shape: time, level, pid, worker, component, msg, and the active trace's ids.
// Levels from LOG_LEVEL (fatal, error, warn, info, debug, trace, silent; default info). Never
// log request bodies, headers, tokens, keys or passwords: the redaction below is a safety net.
import { createRequire } from "node:module";
import { trace } from "@opentelemetry/api";
import pino from "pino";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

function levelFromEnv() {
  const level = (process.env.LOG_LEVEL ?? "").toLowerCase();
  return LOG_LEVELS.includes(level) ? level : "info";
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
    const destination = pino.destination({ dest: 1, sync: false });
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

const holder = globalThis;

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
 * A logger for lines built field by field from values that are never secret (the access line):
 * without the redaction pass, which costs about as much again as writing the line.
 */
export function unredactedLogger(component) {
  return rootLogger().child({ component }, { redact: [] });
}
