import { describe, expect, it } from "vitest";
import { ZKey, ZPatchDataBody } from "./schemas";

describe("the key rule", () => {
  it("accepts the pattern, prototype-member names included, and refuses `.`, `..` and `__proto__`", () => {
    for (const key of ["a", "settings.audio", "x_-.9", "constructor", "toString", "...", "_proto_", "a".repeat(128)]) {
      expect(ZKey.safeParse(key).success, key).toBe(true);
    }
    for (const key of [".", "..", "__proto__", "", "a b", "ä", "a".repeat(129)]) expect(ZKey.safeParse(key).success, key).toBe(false);
  });

  it("does not mistake a prototype member for a key both set and deleted", () => {
    expect(ZPatchDataBody.safeParse({ delete: ["constructor", "toString"] }).success).toBe(true);
    expect(ZPatchDataBody.safeParse({ set: { a: { value: 1 } }, delete: ["a"] }).success).toBe(false);
  });
});
