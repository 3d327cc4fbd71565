/** An instant as "2026-12-05 18:00 UTC", and in the operator's zone with its name ("19:00 Europe/Paris"). */
export function whenUtcAndLocal(iso: string, timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone): { utc: string; local: string } {
  const d = new Date(iso);
  const utc = `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const local = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  })
    .format(d)
    .replace(",", "");
  return { utc, local: `${local} ${timeZone}` };
}

/** A value as the operator reads it: strings quoted, JSON compact. */
export const shown = (v: unknown): string => (v === undefined ? "—" : JSON.stringify(v));

/** A local date-time field's value ("2026-12-05T19:00") as an ISO instant; empty → null. */
export const isoOfLocal = (s: string): string | null => (s.trim() === "" ? null : new Date(s).toISOString());

/** An ISO instant as a local date-time field's value. */
export function localOfIso(iso: string | null): string {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
