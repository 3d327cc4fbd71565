import { describe, expect, it } from "vitest";
import { openCode, sealCode } from "./seal";
import { CODE_MASK, maskCodes, render, withCode } from "./templates";

describe("codes in messages", () => {
  it("a rendered message holds the code masked; the copy for the SMTP server has it in text and html", () => {
    const stored = render("password_reset", { game: "Demo", minutes: 15 });
    expect(stored.text).toContain(`\n    ${CODE_MASK}\n`);
    expect(stored.html).toContain(`>${CODE_MASK}</p>`);
    const sent = withCode(stored, "042917");
    expect(sent.text).toContain("\n    042917\n");
    expect(sent.html).toContain(">042917</p>");
    expect(`${sent.text}${sent.html}`).not.toContain(CODE_MASK);
  });

  it("maskCodes masks a code line of a message stored before codes were masked", () => {
    expect(maskCodes("Enter this code:\n\n    123456\n\nThe code works once.")).toBe(
      `Enter this code:\n\n    ${CODE_MASK}\n\nThe code works once.`,
    );
  });

  it("a sealed code opens for its own message only", () => {
    const sealed = sealCode("message-1", "123456");
    expect(sealed).not.toContain("123456");
    expect(openCode("message-1", sealed)).toBe("123456");
    expect(openCode("message-2", sealed)).toBeNull();
  });

  it("the lock notice names the time the back-off ends, in UTC", () => {
    const m = render("code_guesses_locked", { game: "Demo", minutes: 15, until: new Date("2026-12-08T10:30:00Z") });
    expect(m.text).toContain("wait until 2026-12-08 10:30 UTC");
  });

  it("the lock notice carries its recovery code masked; the copy for the SMTP server has it in clear", () => {
    const m = render("code_guesses_locked", { game: "Demo", minutes: 15, until: new Date("2026-12-08T10:30:00Z") });
    expect(m.text).toContain("\n    ••••••\n");
    const sent = withCode(m, "ABCD-EFGH-JKMN-PQRS");
    expect([sent.text.includes("\n    ABCD-EFGH-JKMN-PQRS\n"), sent.html.includes(">ABCD-EFGH-JKMN-PQRS</p>")]).toEqual([true, true]);
  });
});
