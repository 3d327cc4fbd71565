import { describe, expect, it } from "vitest";
import { hasHiddenCharacters, zLabel } from "./labels";
import { ZCreateOperatorToken } from "./operator-token-schemas";

describe("labels", () => {
  it.each([
    ["a right-to-left override", "Ada\u202Enoob"],
    ["a left-to-right isolate", "\u2066Ada"],
    ["a zero-width space", "A\u200Bda"],
    ["a byte-order mark inside", "A\uFEFFda"],
    ["a soft hyphen", "A\u00ADda"],
    ["a control character", "Ada\u0007"],
  ])("refuses %s", (_, name) => {
    expect(hasHiddenCharacters(name)).toBe(true);
    expect(zLabel().safeParse(name).success).toBe(false);
  });

  it.each([
    ["plain Latin", "Ada Lovelace"],
    ["Arabic (right-to-left by itself, no override)", "آدا"],
    ["Persian with a zero-width non-joiner", "می\u200Cخواهم"],
    ["an emoji ZWJ sequence", "👩\u200D💻 Ada"],
  ])("accepts %s", (_, name) => {
    expect(zLabel().safeParse(name).success).toBe(true);
  });
});

describe("operator-facing names use the same rule", () => {
  it("an operator token named with a right-to-left override is refused", () => {
    const input = { name: "ci\u202Eterces", role: "VIEWER", projectIds: null };
    expect(ZCreateOperatorToken.safeParse(input).success).toBe(false);
    expect(ZCreateOperatorToken.safeParse({ ...input, name: "ci" }).success).toBe(true);
  });
});
