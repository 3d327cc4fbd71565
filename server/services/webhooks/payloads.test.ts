import { describe, expect, it } from "vitest";
import { EVENT_PAYLOADS, PERSONAL_EVENT_FIELDS } from "./payloads";

describe("webhook payloads", () => {
  it("every personal field (e-mail, display name) of a payload accepts null, as a deleted player's pending events carry it", () => {
    const found: string[] = [];
    for (const [type, schema] of Object.entries(EVENT_PAYLOADS)) {
      const shape = (schema as { shape?: Record<string, { safeParse: (v: unknown) => { success: boolean } }> }).shape ?? {};
      for (const field of PERSONAL_EVENT_FIELDS) {
        const fieldSchema = shape[field];
        if (!Object.hasOwn(shape, field) || !fieldSchema) continue;
        found.push(`${type}.${field}`);
        expect(fieldSchema.safeParse(null).success, `${type}.${field}`).toBe(true);
      }
    }
    expect(found).toContain("player.email_linked.email");
  });
});
