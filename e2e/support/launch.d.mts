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
  timeoutMs?: number;
}): Promise<StartedApp>;
