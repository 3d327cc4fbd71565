/**
 * An audit entry's before/after as field-level changes (client-safe, no imports): for two
 * objects, each top-level field that was added, removed or changed; nested values are shown as
 * compact JSON, cut at `max` characters. Anything else (a value, an array, one side missing) is
 * one change of the whole value ("value").
 */
export type FieldChange =
  | { field: string; kind: "changed"; before: string; after: string }
  | { field: string; kind: "added"; after: string }
  | { field: string; kind: "removed"; before: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function compact(value: unknown, max = 120): string {
  const text = typeof value === "string" ? JSON.stringify(value) : value === undefined ? "—" : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export function auditDiff(before: unknown, after: unknown, max = 120): FieldChange[] {
  const hasBefore = before !== null && before !== undefined;
  const hasAfter = after !== null && after !== undefined;
  if (!hasBefore && !hasAfter) return [];
  if (!hasBefore && isRecord(after)) return Object.entries(after).map(([field, v]) => ({ field, kind: "added", after: compact(v, max) }));
  if (!hasAfter && isRecord(before))
    return Object.entries(before).map(([field, v]) => ({ field, kind: "removed", before: compact(v, max) }));
  if (isRecord(before) && isRecord(after)) {
    const changes: FieldChange[] = [];
    for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const inBefore = Object.hasOwn(before, field);
      const inAfter = Object.hasOwn(after, field);
      if (inBefore && !inAfter) changes.push({ field, kind: "removed", before: compact(before[field], max) });
      else if (!inBefore && inAfter) changes.push({ field, kind: "added", after: compact(after[field], max) });
      else if (!same(before[field], after[field]))
        changes.push({ field, kind: "changed", before: compact(before[field], max), after: compact(after[field], max) });
    }
    return changes;
  }
  if (!hasBefore) return [{ field: "value", kind: "added", after: compact(after, max) }];
  if (!hasAfter) return [{ field: "value", kind: "removed", before: compact(before, max) }];
  return same(before, after) ? [] : [{ field: "value", kind: "changed", before: compact(before, max), after: compact(after, max) }];
}
