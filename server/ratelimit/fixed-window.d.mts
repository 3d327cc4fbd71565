export type ScriptKind = "increment" | "read";
export function scriptKind(script: string): ScriptKind | null;
export class FixedWindowCounters {
  run(kind: ScriptKind, keys: unknown[], args: unknown[]): [number, number];
  current(key: string): number;
  increment(key: string, by: number, windowMs: number): number;
}
