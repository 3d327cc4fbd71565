import { describe, expect, it } from "vitest";
import { maskEmail, mayReadPlayerEmails, playerEmailFor } from "./email-privacy";

describe("players' addresses by role", () => {
  it("admins and owners read them, viewers do not", () => {
    expect([mayReadPlayerEmails("VIEWER"), mayReadPlayerEmails("ADMIN"), mayReadPlayerEmails("OWNER")]).toEqual([false, true, true]);
  });

  it("a viewer sees the first letter and the domain only", () => {
    expect(playerEmailFor("VIEWER", "jane.doe@example.com")).toBe("j•••@example.com");
    expect(playerEmailFor("ADMIN", "jane.doe@example.com")).toBe("jane.doe@example.com");
    expect(playerEmailFor("VIEWER", null)).toBeNull();
    expect(maskEmail("not-an-address")).toBe("•••");
  });
});
