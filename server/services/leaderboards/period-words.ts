/**
 * A period key (`<epoch>:all` or `<epoch>:<start, ISO 8601 UTC>`) in words for people: the
 * reward's ledger line and the dashboard say "week of 23 Nov 2026" rather than the key. Plain
 * English and UTC dates, the same on every machine (no Intl: the words are stored in the ledger).
 * Imports nothing, so the dashboard may use it too.
 */
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "23 Nov 2026" (UTC). */
export function dayInWords(at: Date): string {
  return `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]?.slice(0, 3)} ${at.getUTCFullYear()}`;
}

/**
 * `schedule` is the board's reset schedule text (daily, weekly, monthly, a cron expression or
 * null); `startedAt` is when an unscheduled period got its first entry (its key has no start).
 */
export function periodInWords(period: string, schedule: string | null, startedAt?: Date): string {
  const start = period.slice(period.indexOf(":") + 1);
  if (start === "all") return startedAt ? `period from ${dayInWords(startedAt)}` : "all time";
  const at = new Date(start);
  if (Number.isNaN(at.getTime())) return `period ${period}`;
  if (schedule === "daily") return dayInWords(at);
  if (schedule === "weekly") return `week of ${dayInWords(at)}`;
  if (schedule === "monthly") return `${MONTHS[at.getUTCMonth()]} ${at.getUTCFullYear()}`;
  const time = at.toISOString().slice(11, 16);
  return `period from ${dayInWords(at)}${time === "00:00" ? "" : ` ${time} UTC`}`;
}

/** The reward's ledger line without its rank: "Reward: Weekly Race, week of 23 Nov 2026". */
export function rewardReasonOf(boardName: string, periodWords: string): string {
  return `Reward: ${boardName}, ${periodWords}`;
}

/** The rank's suffix, as the close's SQL appends it to each winner's line: " (rank #2)". */
export function rewardReason(boardName: string, periodWords: string, rank: number): string {
  return `${rewardReasonOf(boardName, periodWords)} (rank #${rank})`;
}
