import { outsideTransaction } from "../../db";
import { env } from "../../env";
import { shared } from "../../launcher-contract.mjs";
import { logger } from "../../log";
import { runDueScheduledChanges } from "./index";

/**
 * The scheduler: every process looks for due scheduled changes every SCHEDULER_INTERVAL_SECONDS
 * (pg-boss's cron fires per minute, too coarse for a sale that starts at a given second). Each
 * step is claimed with FOR UPDATE SKIP LOCKED and its status moved on in the same transaction, so
 * a step runs once per cluster however many processes look; a process that dies mid-step rolls it
 * back and the next look takes it again. A change is visible to the game within
 * SCHEDULER_INTERVAL_SECONDS of its time on the instance that applied it, and within
 * DEFINITION_CACHE_TTL_MS more on the others (docs/operating/scheduled-changes.md).
 */
const holder = shared as typeof shared & { __gameBackendScheduler?: { timer?: NodeJS.Timeout; stopped: boolean } };

export function startScheduler(): void {
  if (holder.__gameBackendScheduler) return;
  const state: { timer?: NodeJS.Timeout; stopped: boolean } = { stopped: false };
  holder.__gameBackendScheduler = state;
  const log = logger("scheduler");
  const period = env().SCHEDULER_INTERVAL_SECONDS * 1000;
  const tick = async () => {
    try {
      const n = await runDueScheduledChanges();
      if (n > 0) log.info({ steps: n }, "scheduled changes applied or reverted");
    } catch (error) {
      log.error({ reason: error instanceof Error ? error.message : String(error) }, "scheduled changes: tick failed");
    }
    if (!state.stopped) {
      state.timer = setTimeout(() => void tick(), period);
      state.timer.unref();
    }
  };
  // The launcher's drain stops the looks too (a step in flight commits or rolls back on its own).
  const stopBefore = holder.__gameBackendStopQueue;
  holder.__gameBackendStopQueue = async () => {
    stopScheduler();
    await stopBefore?.();
  };
  // Outside any caller's transaction, as the queue's timers are.
  outsideTransaction(() => {
    state.timer = setTimeout(() => void tick(), period);
    state.timer.unref();
  });
}

export function stopScheduler(): void {
  const state = holder.__gameBackendScheduler;
  if (!state) return;
  state.stopped = true;
  if (state.timer) clearTimeout(state.timer);
}
