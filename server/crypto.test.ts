import { describe, expect, it } from "vitest";
import { uuidv7, uuidv7Floor } from "./crypto";

describe("uuidv7", () => {
  it("is an RFC 9562 version-7 UUID carrying the millisecond timestamp", () => {
    const now = Date.UTC(2026, 10, 22, 4, 0, 0, 123);
    const id = uuidv7(now);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(now);
  });

  it("sorts by creation time across milliseconds and does not repeat", () => {
    const ids = Array.from({ length: 1_000 }, (_, i) => uuidv7(1_700_000_000_000 + i));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 10_000 }, () => uuidv7())).size).toBe(10_000);
  });

  it("uuidv7Floor is at or below every id of its millisecond and above every id of the one before", () => {
    const ms = 1_700_000_000_000;
    const floor = uuidv7Floor(ms);
    for (let i = 0; i < 100; i++) {
      expect(uuidv7(ms) >= floor).toBe(true);
      expect(uuidv7(ms - 1) < floor).toBe(true);
    }
  });
});
