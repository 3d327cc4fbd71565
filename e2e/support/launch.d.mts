import type { ChildProcess } from "node:child_process";

export const root: string;
export function freePort(): Promise<number>;
export type StartedApp = {
  baseUrl: string;
  port: number;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  stop: () => Promise<number | null>;
};
export function launchApp(options?: {
  env?: Record<string, string | undefined>;
  nodeArgs?: string[];
  /** The Node.js binary that runs the launcher (default: this process's). */
  execPath?: string;
  /** The checkout whose launcher runs (default: this one). */
  cwd?: string;
  /** The launcher's own arguments: `["--dev"]` is `npm run dev`. */
  args?: string[];
  timeoutMs?: number;
  /** The app's stdout and stderr go to this file (appended) instead of a pipe; `output()` reads it. */
  logFile?: string;
}): Promise<StartedApp>;
/**
 * Polls `probe` until it returns something other than undefined or false; throws naming `what` after `timeoutMs`.
 * For effects that trail the answer on purpose: log lines (written asynchronously), exported spans.
 */
export function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs?: number,
): Promise<Exclude<T, false>>;
export type LogLine = Record<string, unknown> & { msg?: string; component?: string; level?: string };
/** The first log line of an app that matches `predicate`, waiting for it (lines are written asynchronously). */
export function logLine(
  app: { output: () => string },
  what: string,
  predicate: (line: LogLine) => boolean,
  timeoutMs?: number,
): Promise<LogLine>;
/** The JSON log lines (pino) in an app's output, parsed; other lines (the demo banner, Postgres) skipped. */
export function logLines(text: string): LogLine[];
/** An app's output for a person: each JSON log line as "[component] msg", other lines as they are. */
export function readable(text: string): string;
