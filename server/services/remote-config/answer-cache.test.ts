import { describe, expect, it } from "vitest";
import { answerCacheSize, answerEtag, cachedAnswer, decisionKey } from "./answer-cache";
import type { OverrideDef, RemoteConfigDefs } from "./definitions";
import { inRollout, resolveConfig } from "./resolve";

/**
 * GET /config's answer cache: an entry per definitions snapshot and decision (the overrides that
 * applied, the assignments) — not per audience set, since a rollout splits one audience.
 */

const at = new Date("2026-12-01T00:00:00Z");
const rollout: OverrideDef = {
  id: "ov-half",
  key: "price",
  audienceId: null,
  value: 3,
  priority: 0,
  rolloutPercent: 50,
  startsAt: null,
  endsAt: null,
  enabled: true,
  createdAt: at,
  updatedAt: at,
};
const snapshot = (): RemoteConfigDefs => ({
  version: 7,
  keys: new Map([["price", { key: "price", type: "number", defaultValue: 5, description: "", updatedAt: at }]]),
  overrides: [rollout],
  audiences: new Map(),
  experiments: [],
});
/** Players on each side of the 50 % rollout (no query: no audience, no experiment). */
const players = Array.from({ length: 40 }, (_, i) => `player-${i}`);
const [inA, inB] = players.filter((p) => inRollout(rollout, p));
const [outA] = players.filter((p) => !inRollout(rollout, p));
const resolveFor = async (defs: RemoteConfigDefs, playerId: string) => {
  const r = await resolveConfig({ projectId: "p", playerId, defs, now: at });
  return { r, body: { values: r.values, assignments: r.assignments, version: defs.version } };
};

describe("decisionKey", () => {
  it("two players with the same decisions share a key; the other side of the rollout has its own", async () => {
    const defs = snapshot();
    if (!inA || !inB || !outA) throw new Error("no players on both sides of the rollout");
    const [a, b, c] = await Promise.all([resolveFor(defs, inA), resolveFor(defs, inB), resolveFor(defs, outA)]);
    expect(decisionKey(defs, a.r)).toBe(decisionKey(defs, b.r));
    expect(decisionKey(defs, a.r)).not.toBe(decisionKey(defs, c.r));
    expect(a.body.values.price).toBe(3);
    expect(c.body.values.price).toBe(5);
  });

  it("another assignment is another key; a new snapshot of the same definitions is a fresh one", () => {
    const defs = snapshot();
    const r = (variant: string) => ({ winningOverride: { price: null }, assignments: { "price-test": variant } });
    expect(decisionKey(defs, r("cheap"))).not.toBe(decisionKey(defs, r("dear")));
    expect(decisionKey(defs, r("cheap"))).toBe(decisionKey(defs, r("cheap")));
    expect(decisionKey(snapshot(), r("cheap"))).not.toBe(decisionKey(defs, r("cheap")));
  });
});

describe("cachedAnswer", () => {
  it("serialises and hashes once per decision: the text and ETag are what the body gives", async () => {
    const defs = snapshot();
    if (!inA || !inB || !outA) throw new Error("no players on both sides of the rollout");
    const a = await resolveFor(defs, inA);
    const first = cachedAnswer(defs, a.r, a.body, 1 << 20);
    expect(first.text).toBe(JSON.stringify(a.body));
    expect(first.etag).toBe(answerEtag(JSON.stringify(a.body)));
    const b = await resolveFor(defs, inB);
    const held = answerCacheSize().entries;
    expect(cachedAnswer(defs, b.r, b.body, 1 << 20)).toBe(first); // the same entry
    expect(answerCacheSize().entries).toBe(held);
    const c = await resolveFor(defs, outA);
    expect(cachedAnswer(defs, c.r, c.body, 1 << 20).text).toBe(JSON.stringify(c.body));
    expect(answerCacheSize().entries).toBe(held + 1);
  });

  it("stays within its budget, least recently used out first; a budget of 0 keeps nothing", () => {
    const defs = snapshot();
    const r = (variant: string) => ({ winningOverride: {}, assignments: { e: variant } });
    const body = (variant: string) => ({ values: { pad: "x".repeat(1_000) }, assignments: { e: variant }, version: 1 });
    const budget = 3_500; // three answers of about 1 KiB each
    const first = cachedAnswer(defs, r("v0"), body("v0"), budget);
    for (let i = 1; i < 3; i++) cachedAnswer(defs, r(`v${i}`), body(`v${i}`), budget);
    expect(cachedAnswer(defs, r("v0"), body("v0"), budget)).toBe(first); // used again: now the most recent
    cachedAnswer(defs, r("v3"), body("v3"), budget);
    expect(answerCacheSize().bytes).toBeLessThanOrEqual(budget);
    expect(cachedAnswer(defs, r("v0"), body("v0"), budget)).toBe(first);
    const v1 = cachedAnswer(defs, r("v1"), body("v1"), budget); // v1 was the least recent: evicted, built anew
    expect(cachedAnswer(defs, r("v1"), body("v1"), budget)).toBe(v1);
    expect(cachedAnswer(defs, r("off"), body("off"), 0)).not.toBe(cachedAnswer(defs, r("off"), body("off"), 0));
  });
});
