import { CronExpressionParser } from "cron-parser";
import { scheduleShapeProblem } from "./board-schemas";

/**
 * A board's current period is computed from its reset schedule and the clock — no background
 * job — so every instance agrees on the boundary to the millisecond and a reset happens on time
 * with no instance running. The period key also carries the board's epoch, which "reset now"
 * bumps. Keys: `<epoch>:all`, `<epoch>:<start of the period as ISO 8601 UTC>`.
 */
export type Schedule = "daily" | "weekly" | "monthly" | { cron: string };

const NAMED = new Set(["daily", "weekly", "monthly"]);

/** The stored text (`daily`, `weekly`, `monthly` or a cron expression) as a schedule; throws on a bad cron. */
export function parseSchedule(text: string): Schedule {
  if (NAMED.has(text)) return text as Schedule;
  CronExpressionParser.parse(text, { tz: "UTC", strict: false });
  return { cron: text };
}

/** A cron expression must have 5 fields (minute resolution) and parse; returns why not, or null. */
export function scheduleProblem(text: string): string | null {
  if (NAMED.has(text)) return null;
  const shape = scheduleShapeProblem(text);
  if (shape) return shape;
  try {
    CronExpressionParser.parse(text, { tz: "UTC" });
    return null;
  } catch (error) {
    return `Invalid cron expression: ${(error as Error).message}`;
  }
}

type Window = { start: Date | null; end: Date | null };

/** The schedule's window containing `now`: [start, end). Weeks start on Monday (ISO). */
export function windowAt(schedule: Schedule | null, now: Date): Window {
  if (schedule === null) return { start: null, end: null };
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  if (schedule === "daily") return { start: new Date(Date.UTC(y, m, d)), end: new Date(Date.UTC(y, m, d + 1)) };
  if (schedule === "weekly") {
    const sinceMonday = (now.getUTCDay() + 6) % 7;
    return { start: new Date(Date.UTC(y, m, d - sinceMonday)), end: new Date(Date.UTC(y, m, d - sinceMonday + 7)) };
  }
  if (schedule === "monthly") return { start: new Date(Date.UTC(y, m, 1)), end: new Date(Date.UTC(y, m + 1, 1)) };
  // cron-parser's prev() is strictly before currentDate: step 1 ms past now so a boundary at
  // exactly `now` starts the new period.
  const at = new Date(now.getTime() + 1);
  const start = CronExpressionParser.parse(schedule.cron, { tz: "UTC", currentDate: at }).prev().toDate();
  const end = CronExpressionParser.parse(schedule.cron, { tz: "UTC", currentDate: now }).next().toDate();
  return { start, end };
}

export function periodKey(epoch: number, schedule: Schedule | null, now: Date): { period: string; resetsAt: Date | null } {
  const { start, end } = windowAt(schedule, now);
  return { period: `${epoch}:${start ? start.toISOString() : "all"}`, resetsAt: end };
}
