import type { Logger } from "pino";

export declare const LOG_LEVELS: readonly ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
/** The process's root logger (one per process, however often bundles load the module). */
export declare function rootLogger(): Logger;
/** A logger whose lines carry `component` (http, db, ratelimit, start…). */
export declare function logger(component: string): Logger;
/**
 * A logger for lines built field by field from values that are never secret (the access line):
 * without the redaction pass, which costs about as much again as writing the line.
 */
export declare function unredactedLogger(component: string): Logger;
