import { describe, expect, it } from "vitest";
import { passwordProblem } from "./password-policy";

describe("password policy", () => {
  it("refuses common passwords in any case, blank ones and ones built from the e-mail", () => {
    for (const weak of ["password", "12345678", "PASSWORD", "qwerty123", "iloveyou", "        "]) {
      expect(passwordProblem(weak, "someone@example.com"), weak).not.toBeNull();
    }
    expect(passwordProblem("alice.smith@example.com", "alice.smith@example.com")).not.toBeNull();
    expect(passwordProblem("Alice.Smith1999", "alice.smith@example.com")).not.toBeNull();
  });

  it("accepts an uncommon password, and short local parts do not forbid their letters", () => {
    expect(passwordProblem("correct horse battery", "someone@example.com")).toBeNull();
    expect(passwordProblem("a long and unusual passphrase 42", "jo@example.com")).toBeNull();
  });

  it("knows at least the 10,000 most common passwords", async () => {
    const { dictionary } = await import("@zxcvbn-ts/language-common");
    const top = dictionary["passwords-common"].slice(0, 10_000).filter((p) => p.length >= 8 && p.trim() !== "");
    expect(top.length).toBeGreaterThan(1_000);
    for (const p of top) expect(passwordProblem(p, "x@example.com"), p).not.toBeNull();
  });
});
