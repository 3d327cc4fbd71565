import { describe, expect, it } from "vitest";
import { EVENT_TYPE_GROUPS, SUBSCRIBABLE_EVENT_TYPES, ZWebhookEndpointInput } from "./schemas";

describe("webhook endpoint schemas", () => {
  it("the dashboard's groups cover every subscribable event type once", () => {
    expect(EVENT_TYPE_GROUPS.flatMap((g) => g.types).sort()).toEqual([...SUBSCRIBABLE_EVENT_TYPES].sort());
  });

  it("refuse a non-URL, ftp:, an unknown or no event type, a long description and bidi characters", () => {
    const ok = { url: "https://hooks.example.com/in", eventTypes: ["player.created"] };
    expect(ZWebhookEndpointInput.safeParse(ok).success).toBe(true);
    for (const bad of [
      { ...ok, url: "not a url" },
      { ...ok, url: "ftp://hooks.example.com/in" },
      { ...ok, url: "https://user:pw@hooks.example.com/in" },
      { ...ok, eventTypes: ["player.exploded"] },
      { ...ok, eventTypes: ["webhook.test"] },
      { ...ok, eventTypes: [] },
      { ...ok, eventTypes: ["player.created", "player.created"] },
      { ...ok, description: "x".repeat(201) },
      { ...ok, description: "Discord bot\u202E" },
    ]) {
      expect(ZWebhookEndpointInput.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
