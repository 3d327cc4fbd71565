import { describe, expect, it } from "vitest";
import { auditDiff, compact } from "./audit-diff";

describe("auditDiff: an audit entry's before and after as field changes", () => {
  it("lists changed fields old → new, added and removed fields, and leaves out what stayed", () => {
    expect(auditDiff({ name: "Coins", max: 10, keep: 1, gone: true }, { name: "Gold", max: 10, keep: 1, added: [1] })).toEqual([
      { field: "name", kind: "changed", before: '"Coins"', after: '"Gold"' },
      { field: "gone", kind: "removed", before: "true" },
      { field: "added", kind: "added", after: "[1]" },
    ]);
  });

  it("a creation (no before) lists every field as added; a deletion every field as removed", () => {
    expect(auditDiff(null, { reason: "cheat", until: null })).toEqual([
      { field: "reason", kind: "added", after: '"cheat"' },
      { field: "until", kind: "added", after: "null" },
    ]);
    expect(auditDiff({ id: "coins" }, null)).toEqual([{ field: "id", kind: "removed", before: '"coins"' }]);
    expect(auditDiff(null, null)).toEqual([]);
  });

  it("shows nested values as compact JSON cut to a length, and a non-object change as one value", () => {
    const nested = auditDiff({ costs: [{ currencyId: "coins", amount: 1 }] }, { costs: [{ currencyId: "coins", amount: 2 }] }, 20);
    expect(nested).toEqual([{ field: "costs", kind: "changed", before: '[{"currencyId":"coi…', after: '[{"currencyId":"coi…' }]);
    expect(auditDiff(1, 2)).toEqual([{ field: "value", kind: "changed", before: "1", after: "2" }]);
    expect(compact("x".repeat(10), 5)).toBe('"xxx…');
  });
});
