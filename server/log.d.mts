import type { Logger } from "pino";

export declare const LOG_LEVELS: readonly ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
/** The process's root logger (one per process, however often bundles load the module). */
export declare function rootLogger(): Logger;
/** A logger whose lines carry `component` (http, db, ratelimit, start…). */
export declare function logger(component: string): Logger;
type Level = "fatal" | "error" | "warn" | "info" | "debug" | "trace";
/**
 * Writes lines whose fields are already serialised (`"name":value,…`, never secret values) in the
 * logger's shape, straight to its buffered destination: the access line.
 */
export declare function lineWriter(component: string): {
  enabled(level: Level): boolean;
  write(level: Level, fields: string, msg: string): void;
};
