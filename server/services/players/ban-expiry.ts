import { pool, transaction } from "../../db";
import { logger } from "../../log";
import { handle, QUEUES } from "../../queue";
import { type BoardPeriod, restoreEntriesOf, syncRankIndex } from "../leaderboards/moderation";
import { emitEvents } from "../webhooks/events";

/**
 * The end of a timed ban, announced: the `player-ban-expiry` job (every minute, once per cluster)
 * sends player.unbanned with `expired: true` for every timed ban that has run out and was not
 * announced yet, and marks it announced (players.ban_expiry_sent) in the transaction that writes
 * the events, so each ban's end is announced once even if the job runs twice or concurrently
 * (rows are taken FOR UPDATE SKIP LOCKED). A ban ends for the game at its `until` whatever this
 * job does (server/identity/player.ts): the event follows within about a minute, later if no
 * instance was running (the next run catches up). An operator lifting a ban sends
 * player.unbanned with `expired: false` (bans.ts); a new ban clears the mark.
 *
 * The same transaction puts each such player's hidden leaderboard entries back on their boards
 * (restoreEntriesOf; the mark is what lets the refusal trigger accept them), and the rank index is
 * told once it has committed: the entries come back with the announcement, within about a minute
 * of the ban's end. `now`: the clock (tests).
 */
export async function announceEndedBans(o: { batch?: number; now?: Date } = {}): Promise<number> {
  const batch = o.batch ?? 1_000;
  let announced = 0;
  for (;;) {
    const restored: Array<{ projectId: string; playerId: string; boards: BoardPeriod[] }> = [];
    const n = await transaction(async () => {
      const { rows } = await pool().query<{ id: string; project_id: string }>(
        `UPDATE players p SET ban_expiry_sent = true
           FROM (SELECT id FROM players
                  WHERE banned_until IS NOT NULL AND NOT ban_expiry_sent AND banned_until <= coalesce($2::timestamptz, now())
                  ORDER BY banned_until LIMIT $1 FOR UPDATE SKIP LOCKED) ended
          WHERE p.id = ended.id
          RETURNING p.id, p.project_id`,
        [batch, o.now ?? null],
      );
      const byProject = new Map<string, string[]>();
      for (const r of rows) {
        const back = await restoreEntriesOf({ projectId: r.project_id, playerId: r.id });
        if (back.boards.length) restored.push({ projectId: r.project_id, playerId: r.id, boards: back.boards });
        const players = byProject.get(r.project_id);
        if (players) players.push(r.id);
        else byProject.set(r.project_id, [r.id]);
      }
      for (const [projectId, players] of byProject) {
        await emitEvents(
          projectId,
          "player.unbanned",
          players.map((playerId) => ({ playerId, data: { playerId, expired: true } })),
        );
      }
      return rows.length;
    });
    for (const r of restored) await syncRankIndex(r.projectId, [r.playerId], r.boards);
    announced += n;
    if (n < batch) return announced;
  }
}

/** The player-ban-expiry job (every minute, once per cluster: server/queue.ts SCHEDULES). */
export function registerBanExpiry(): void {
  handle(QUEUES.banExpiry, async () => {
    const n = await announceEndedBans();
    if (n > 0) logger("players").info({ announced: n }, `announced the end of ${n} timed bans`);
  });
}
