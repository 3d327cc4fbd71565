import { utcInstant, when } from "./format";

/**
 * A date as the dashboard shows every date: "24 Nov 2026, 09:34 CET" in the operator's zone, the
 * UTC instant as its title. The server renders it in its own zone; the browser's render may
 * differ, which is expected (suppressHydrationWarning).
 */
export function When({ value, fallback = "—" }: { value: Date | string | number | null | undefined; fallback?: string }) {
  if (value === null || value === undefined) return <>{fallback}</>;
  return (
    <time dateTime={new Date(value).toISOString()} title={utcInstant(value)} className="whitespace-nowrap" suppressHydrationWarning>
      {when(value)}
    </time>
  );
}
