const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const relative = new Intl.RelativeTimeFormat("en", { numeric: "always" });
const weekday = new Intl.DateTimeFormat("en", { weekday: "long", timeZone: "UTC" });
const dayMonth = new Intl.DateTimeFormat("en", { day: "numeric", month: "long", timeZone: "UTC" });

/**
 * When a board's current period ends, as an operator says it: "resets in 3 days, Monday 00:00
 * UTC", "resets in 5 hours, Tuesday 00:00 UTC", "never". Boundaries are UTC (schedules are), so
 * the time is shown in UTC, not the browser's zone; past a week the date is added.
 */
export function nextResetText(resetsAt: string | null, now = new Date()): string {
  if (!resetsAt) return "never";
  const at = new Date(resetsAt);
  const ms = at.getTime() - now.getTime();
  const inWords =
    ms < HOUR
      ? relative.format(Math.max(1, Math.ceil(ms / MINUTE)), "minute")
      : ms < 2 * DAY
        ? relative.format(Math.round(ms / HOUR), "hour")
        : relative.format(Math.round(ms / DAY), "day");
  const time = `${String(at.getUTCHours()).padStart(2, "0")}:${String(at.getUTCMinutes()).padStart(2, "0")}`;
  const when = ms > 6 * DAY ? `${weekday.format(at)} ${dayMonth.format(at)}` : weekday.format(at);
  return `resets ${inWords}, ${when} ${time} UTC`;
}
