import { describe, expect, it } from "vitest";
import { markerLabel } from "./releases";

/** The chart's markers say in words what an audit entry changed. */
describe("markerLabel", () => {
  const of = (action: string, o: { target?: string; key?: string; schedule?: string; changes?: number } = {}) =>
    markerLabel({ action, target: o.target ?? null, key: o.key ?? null, schedule: o.schedule ?? null, changes: o.changes ?? null });

  it("names remote config keys, overrides, audiences and experiments with what happened", () => {
    expect(of("remote_config.key.upsert", { target: "shop.discount" })).toBe('Config key "shop.discount" saved');
    expect(of("remote_config.key.delete", { target: "shop.discount" })).toBe('Config key "shop.discount" deleted');
    expect(of("remote_config.override.create", { target: "0193…", key: "shop.discount" })).toBe('Override of "shop.discount" added');
    expect(of("remote_config.override.delete")).toBe("Config override deleted");
    expect(of("remote_config.audience.upsert", { target: "payers" })).toBe('Audience "payers" saved');
    expect(of("remote_config.experiment.status", { target: "price-test" })).toBe('Experiment "price-test" started or stopped');
  });

  it("names a scheduled change's start and end, and counts an import's changes", () => {
    expect(of("schedule.apply", { schedule: "Weekend sale" })).toBe('Scheduled change "Weekend sale" started');
    expect(of("schedule.revert", { schedule: "Weekend sale" })).toBe('Scheduled change "Weekend sale" ended');
    expect(of("schedule.revert")).toBe("Scheduled change ended");
    expect(of("config.import", { changes: 3 })).toBe("Config import (3 changes)");
    expect(of("config.import")).toBe("Config import");
  });

  it("shortens a long name", () => {
    expect(of("remote_config.key.upsert", { target: "k".repeat(60) })).toBe(`Config key "${"k".repeat(39)}…" saved`);
  });
});
