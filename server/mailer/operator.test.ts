import { describe, expect, it } from "vitest";
import { renderInvite } from "./operator";

describe("the invite mail", () => {
  const v = {
    project: "Demo <Game>",
    role: "ADMIN",
    invitedBy: "Ada (ada@studio.test)",
    link: "https://backend.example/invite/abc_DEF-123",
    expiresAt: new Date("2026-12-04T09:30:00Z"),
  };

  it("names the project, the inviter, the role, the link and until when it works, in text and HTML", () => {
    const m = renderInvite(v);
    expect(m.subject).toBe("Invite to Demo <Game>");
    expect(m.text).toContain("Ada (ada@studio.test) invited you to the project Demo <Game> as admin.");
    expect(m.text).toContain(`\n${v.link}\n`);
    expect(m.text).toContain("until 2026-12-04 09:30 UTC");
    expect(m.html).toContain(`<a href="${v.link}">${v.link}</a>`);
  });

  it("escapes the operator-chosen project name in the HTML", () => {
    const m = renderInvite(v);
    expect(m.html).toContain("Demo &lt;Game&gt;");
    expect(m.html).not.toContain("<Game>");
  });
});
