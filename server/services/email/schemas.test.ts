import { describe, expect, it } from "vitest";
import { ZEmailSettingsInput } from "./schemas";

const base = { requireVerifiedEmail: false, resetUnverifiedEmail: false };

describe("ZEmailSettingsInput", () => {
  it("reads an empty or blank sender name and address as null (the defaults)", () => {
    expect(ZEmailSettingsInput.parse({ ...base, fromName: "  ", fromAddress: "" })).toEqual({ ...base, fromName: null, fromAddress: null });
  });

  it("trims the sender name and address it keeps", () => {
    expect(ZEmailSettingsInput.parse({ ...base, fromName: " Coin Cascade ", fromAddress: " game@studio.test " })).toMatchObject({
      fromName: "Coin Cascade",
      fromAddress: "game@studio.test",
    });
  });

  it("refuses a sender name with a line break (a header injection) or another control character", () => {
    for (const fromName of ["Game\r\nBcc: victim@example.com", "Game\u0007"])
      expect(ZEmailSettingsInput.safeParse({ ...base, fromName, fromAddress: null }).success, JSON.stringify(fromName)).toBe(false);
  });

  it("refuses an address that is not an e-mail address, with a plain sentence", () => {
    const result = ZEmailSettingsInput.safeParse({ ...base, fromName: null, fromAddress: "not an address" });
    expect(result.error?.issues.map((i) => [i.path.join("."), i.message])).toEqual([
      ["fromAddress", "Enter an e-mail address, such as game@studio.com."],
    ]);
  });
});
