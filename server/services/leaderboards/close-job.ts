import { logger } from "../../log";
import { handle, QUEUES } from "../../queue";
import { closeEndedPeriods } from "./closes";

/** The leaderboard-period-close job (every minute, once per cluster: server/queue.ts SCHEDULES). */
export function registerPeriodCloses(): void {
  handle(QUEUES.periodClose, async () => {
    const closed = await closeEndedPeriods();
    for (const c of closed) logger("leaderboards").info(c, `closed period ${c.period} of ${c.leaderboardId}: ${c.rewardsGranted} rewarded`);
  });
}
