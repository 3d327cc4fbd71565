import { randomUUID } from "node:crypto";
import tQuantile from "@stdlib/stats-base-dists-t-quantile";
import { beforeAll, describe, expect, it } from "vitest";
import { pool } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { makeProject, type TestProject } from "../support/fixtures";
import { caller, newOperator, trpcRefusal } from "../support/operators";

/**
 * An experiment's results through the `experimentResults.get` procedure as the dashboard calls
 * it: two price variants with seeded assignments, purchases, spend and visits; counts, rates,
 * means and 95 % intervals checked against values computed here by the textbook formulas
 * (Wilson's score interval, Newcombe's difference, mean ± t·s/√n, Welch's difference).
 */
// 97.5th percentiles: the standard normal, Student's t with 9 and 7 degrees of freedom (tables).
const Z = 1.959963984540054;
const T = { 9: 2.262157162798205, 7: 2.364624251592785 } as const;
const HOUR = 3_600_000;

function wilson(x: number, n: number) {
  const p = x / n;
  const centre = (p + (Z * Z) / (2 * n)) / (1 + (Z * Z) / n);
  const half = (Z / (1 + (Z * Z) / n)) * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n));
  return { low: centre - half, high: centre + half };
}

function sampleSd(xs: number[]) {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
}

type Seeded = { project: TestProject; owner: SessionOperator; viewer: SessionOperator; assignedAt: Date };

async function addPlayers(projectId: string, n: number, lastSeenAt: Date | null = null): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  for (const id of ids)
    await pool().query("INSERT INTO players (id, project_id, updated_at, last_seen_at) VALUES ($1, $2, now(), $3)", [
      id,
      projectId,
      lastSeenAt,
    ]);
  return ids;
}

async function assign(projectId: string, experimentId: string, variant: string, players: string[], at: Date) {
  for (const p of players)
    await pool().query(
      "INSERT INTO experiment_assignments (project_id, experiment_id, player_id, variant, assigned_at) VALUES ($1, $2, $3, $4, $5)",
      [projectId, experimentId, p, variant, at],
    );
}

async function storeSale(projectId: string, playerId: string, priceMicros: number, o: { at: Date; environment?: string; status?: string }) {
  await pool().query(
    `INSERT INTO store_transactions (id, project_id, store, store_transaction_id, player_id, status, environment, price_micros, currency, created_at)
     VALUES ($1, $2, 'apple', $3, $4, $5, $6, $7, 'USD', $8)`,
    [randomUUID(), projectId, randomUUID(), playerId, o.status ?? "granted", o.environment ?? "production", priceMicros, o.at],
  );
}

async function ledger(projectId: string, playerId: string, kind: string, currencies: Array<{ id: string; delta: number }>, at: Date) {
  await pool().query(
    `INSERT INTO economy_transactions (id, project_id, player_id, kind, currencies, items, actor_kind, created_at)
     VALUES ($1, $2, $3, $4::"EconomyTransactionKind", $5, '[]', 'player', $6)`,
    [randomUUID(), projectId, playerId, kind, JSON.stringify(currencies.map((c) => ({ ...c, balance: 0 }))), at],
  );
}

/**
 * "price-test": control (10 players; 3 convert: two store sales of $0.99 and $1.99, one economy
 * purchase; one more bought only before assignment, one only in the sandbox) and cheap (8
 * players; 5 convert with $0.49 sales, one of them twice).
 */
async function seed(): Promise<Seeded> {
  const project = await makeProject();
  const { projectId } = project;
  const assignedAt = new Date(Date.now() - 3 * 24 * HOUR);
  const after = new Date(assignedAt.getTime() + HOUR);
  const before = new Date(assignedAt.getTime() - HOUR);
  await pool().query(
    `INSERT INTO experiments (project_id, id, name, status, variants, metric, started_at)
     VALUES ($1, 'price-test', 'Gem pack price', 'running', $2, '{"kind":"purchases"}', $3)`,
    [
      projectId,
      JSON.stringify([
        { id: "control", name: "Control $0.99", weight: 50, values: { gemPrice: 0.99 } },
        { id: "cheap", name: "Cheap $0.49", weight: 50, values: { gemPrice: 0.49 } },
      ]),
      assignedAt,
    ],
  );
  const seenLately = new Date(assignedAt.getTime() + 2 * 24 * HOUR);
  const control = [...(await addPlayers(projectId, 4, seenLately)), ...(await addPlayers(projectId, 6))];
  const cheap = [...(await addPlayers(projectId, 6, seenLately)), ...(await addPlayers(projectId, 2))];
  await assign(projectId, "price-test", "control", control, assignedAt);
  await assign(projectId, "price-test", "cheap", cheap, assignedAt);
  const [c0, c1, c2, c3, c4] = control as [string, string, string, string, string];
  await storeSale(projectId, c0, 990_000, { at: after });
  await storeSale(projectId, c1, 1_990_000, { at: after });
  await ledger(projectId, c2, "PURCHASE", [{ id: "gems", delta: -50 }], after);
  await storeSale(projectId, c3, 990_000, { at: before });
  await storeSale(projectId, c4, 990_000, { at: after, environment: "sandbox" });
  for (const p of cheap.slice(0, 5)) await storeSale(projectId, p, 490_000, { at: after });
  await storeSale(projectId, cheap[0] as string, 490_000, { at: after });
  await ledger(projectId, cheap[1] as string, "SUBTRACT", [{ id: "gems", delta: -20 }], after);
  await ledger(projectId, cheap[1] as string, "ADD", [{ id: "gems", delta: 100 }], after);
  return { project, assignedAt, owner: await newOperator("OWNER", projectId), viewer: await newOperator("VIEWER", projectId) };
}

let s: Seeded;
beforeAll(async () => {
  s = await seed();
});

const results = (o: SessionOperator, metric?: Parameters<ReturnType<typeof caller>["experimentResults"]["get"]>[0]["metric"]) =>
  caller(o).experimentResults.get({ projectId: s.project.projectId, experimentId: "price-test", ...(metric ? { metric } : {}) });

describe("experiment results", () => {
  it("count conversions per variant after assignment, with Wilson intervals and Newcombe's difference from the first variant", async () => {
    const r = await results(s.owner);
    expect(r.measure).toBe("proportion");
    expect(r.metric).toEqual({ kind: "purchases" });
    const [control, cheap] = r.variants;
    expect(control).toMatchObject({
      id: "control",
      name: "Control $0.99",
      assigned: 10,
      measured: 10,
      total: 3,
      value: 0.3,
      difference: null,
    });
    expect(cheap).toMatchObject({ id: "cheap", assigned: 8, measured: 8, total: 5, value: 0.625 });
    const [w1, w2] = [wilson(3, 10), wilson(5, 8)];
    expect(control?.interval?.low).toBeCloseTo(w1.low, 10);
    expect(control?.interval?.high).toBeCloseTo(w1.high, 10);
    expect(control?.interval?.low).toBeCloseTo(0.1078, 4);
    expect(cheap?.interval?.low).toBeCloseTo(w2.low, 10);
    expect(cheap?.interval?.high).toBeCloseTo(w2.high, 10);
    const d = 0.625 - 0.3;
    expect(cheap?.difference?.value).toBeCloseTo(d, 10);
    expect(cheap?.difference?.low).toBeCloseTo(d - Math.sqrt((0.625 - w2.low) ** 2 + (w1.high - 0.3) ** 2), 10);
    expect(cheap?.difference?.high).toBeCloseTo(d + Math.sqrt((w2.high - 0.625) ** 2 + (0.3 - w1.low) ** 2), 10);
  });

  it("give revenue per player as a mean of price micros with mean ± t·s/√n and Welch's difference", async () => {
    const r = await results(s.owner, { kind: "revenue", currency: "USD" });
    expect(r.measure).toBe("mean");
    const controlValues = [990_000, 1_990_000, 0, 0, 0, 0, 0, 0, 0, 0];
    const cheapValues = [980_000, 490_000, 490_000, 490_000, 490_000, 0, 0, 0];
    const [control, cheap] = r.variants;
    for (const [variant, values] of [
      [control, controlValues],
      [cheap, cheapValues],
    ] as const) {
      const m = values.reduce((a, b) => a + b, 0) / values.length;
      const half = (T[values.length === 10 ? 9 : 7] * sampleSd([...values])) / Math.sqrt(values.length);
      expect(variant?.total).toBe(values.reduce((a, b) => a + b, 0));
      expect(variant?.value).toBeCloseTo(m, 6);
      expect(variant?.interval?.low).toBeCloseTo(m - half, 6);
      expect(variant?.interval?.high).toBeCloseTo(m + half, 6);
    }
    const [v1, v2] = [sampleSd(controlValues) ** 2 / 10, sampleSd(cheapValues) ** 2 / 8];
    const df = (v1 + v2) ** 2 / (v1 ** 2 / 9 + v2 ** 2 / 7);
    const d = 2_940_000 / 8 - 2_980_000 / 10;
    expect(cheap?.difference?.value).toBeCloseTo(d, 6);
    expect(cheap?.difference?.high).toBeCloseTo(d + tQuantile(0.975, df) * Math.sqrt(v1 + v2), 6);
    expect(df).toBeGreaterThan(7);
  });

  it("give retention as the share seen again at least N days after assignment", async () => {
    const r = await results(s.owner, { kind: "retention", days: 1 });
    expect(r.variants.map((v) => [v.id, v.measured, v.total])).toEqual([
      ["control", 10, 4],
      ["cheap", 8, 6],
    ]);
    const later = await results(s.owner, { kind: "retention", days: 30 });
    expect(later.variants.map((v) => [v.id, v.assigned, v.measured, v.value])).toEqual([
      ["control", 10, 0, null],
      ["cheap", 8, 0, null],
    ]);
  });

  it("give a currency's spend as the sum of its negative ledger deltas per player", async () => {
    const r = await results(s.owner, { kind: "currencySpend", currency: "gems" });
    expect(r.variants.map((v) => [v.id, v.total, v.value])).toEqual([
      ["control", 50, 5],
      ["cheap", 20, 2.5],
    ]);
  });

  it("refuse a currency spend without its currency, as a validation error", async () => {
    expect(await trpcRefusal(results(s.owner, { kind: "currencySpend" }))).toMatchObject({ appCode: "VALIDATION_ERROR" });
  });

  it("are read by a viewer", async () => {
    expect((await results(s.viewer)).variants).toHaveLength(2);
  });

  it("are NOT_FOUND for another project's experiment and for an operator of another project", async () => {
    const other = await makeProject();
    const stranger = await newOperator("OWNER", other.projectId);
    expect((await trpcRefusal(results(stranger))).code).toBe("NOT_FOUND");
    const otherOwner = stranger;
    const refusal = await trpcRefusal(caller(otherOwner).experimentResults.get({ projectId: other.projectId, experimentId: "price-test" }));
    expect(refusal).toMatchObject({ code: "NOT_FOUND", message: "Experiment not found." });
  });
});
