import { beforeAll, describe, expect, it } from "vitest";
import type { SessionOperator } from "@/server/identity/operator";
import { createCurrency, createItem, createPurchase } from "@/server/services/economy/definitions";
import { makeProject, type TestProject } from "../support/fixtures";
import { caller, newOperator } from "../support/operators";

/**
 * "Who changed buy-potion's price?": a config import writes one audit row per definition it
 * changed (target "<kind>:<id>", that definition's fields before → after) and a summary row, all
 * carrying one import id; the audit log finds them by target ("purchase:buy-potion" or just
 * "buy-potion", which also finds the dashboard's edits of it) and by import id.
 */
type Entry = { action: string; target: string | null; operatorEmail: string | null; before: unknown; after: unknown };
let project: TestProject;
let owner: SessionOperator;
let admin: SessionOperator;
let importId: string;
let entries: Entry[];

const list = async (filters: { target?: string; importId?: string; action?: string }) =>
  (await caller(owner).audit.list({ projectId: project.projectId, limit: 100, ...filters })).entries as Entry[];

beforeAll(async () => {
  project = await makeProject();
  const { projectId } = project;
  owner = await newOperator("OWNER", projectId);
  admin = await newOperator("ADMIN", projectId);
  await createCurrency({ projectId, input: { id: "coins", name: "Coins", clientWritable: false } });
  await createItem({ projectId, input: { id: "potion", name: "Potion" } });
  await createItem({ projectId, input: { id: "sword", name: "Sword" } });
  await createPurchase({
    projectId,
    input: { id: "buy-potion", name: "Potion", costs: [{ currencyId: "coins", amount: 10 }], rewards: [{ itemId: "potion", quantity: 1 }] },
  });
  await createPurchase({
    projectId,
    input: { id: "buy-sword", name: "Sword", costs: [{ currencyId: "coins", amount: 100 }], rewards: [{ itemId: "sword", quantity: 1 }] },
  });
  const doc = await caller(admin).config.export({ projectId });
  const document = {
    ...doc,
    currencies: doc.currencies.map((c) => (c.id === "coins" ? { ...c, maxBalance: 5000 } : c)),
    purchases: doc.purchases.map((p) =>
      p.id === "buy-potion"
        ? { ...p, costs: [{ currencyId: "coins", amount: 15 }] }
        : p.id === "buy-sword"
          ? { ...p, name: "Sharp sword" }
          : p,
    ),
  };
  const plan = await caller(admin).config.import({ projectId, document });
  expect(plan.changes).toBe(3);
  const summary = (await list({ action: "config.import" })).find((e) => e.action === "config.import");
  importId = String((summary?.after as { importId?: string } | undefined)?.importId);
  entries = await list({ importId });
});

describe("a config import's audit", () => {
  it("writes one row per changed definition and one summary, all with the same import id, by the importing operator", () => {
    expect(importId).toMatch(/^[0-9a-f-]{36}$/);
    expect(entries.map((e) => [e.action, e.target]).sort()).toEqual(
      [
        ["config.import", project.projectId],
        ["config.import.currency.change", "currency:coins"],
        ["config.import.purchase.change", "purchase:buy-potion"],
        ["config.import.purchase.change", "purchase:buy-sword"],
      ].sort(),
    );
    expect(new Set(entries.map((e) => e.operatorEmail))).toEqual(new Set([admin.email]));
    for (const e of entries) expect((e.after as { importId: string }).importId).toBe(importId);
  });

  it("each definition's row holds only its changed fields, before → after", () => {
    const byTarget = new Map(entries.map((e) => [e.target, e]));
    expect(byTarget.get("purchase:buy-potion")).toMatchObject({
      before: { importId, costs: [{ currencyId: "coins", amount: 10 }] },
      after: { importId, costs: [{ currencyId: "coins", amount: 15 }] },
    });
    expect(Object.keys(byTarget.get("purchase:buy-potion")?.after as object).sort()).toEqual(["costs", "importId"]);
    expect(byTarget.get("purchase:buy-sword")).toMatchObject({ before: { name: "Sword" }, after: { name: "Sharp sword" } });
    expect(byTarget.get("currency:coins")).toMatchObject({ before: { maxBalance: null }, after: { maxBalance: 5000 } });
  });

  it("is found by target, as kind:id or as the bare id, with the dashboard's own edits of that definition", async () => {
    await caller(owner).economy.updatePurchase({
      projectId: project.projectId,
      id: "buy-potion",
      patch: { costs: [{ currencyId: "coins", amount: 12 }] },
      reason: "Weekend sale",
    });
    const byKind = await list({ target: "purchase:buy-potion" });
    expect(byKind.map((e) => [e.action, e.operatorEmail])).toEqual([
      ["economy.purchase.update", owner.email],
      ["config.import.purchase.change", admin.email],
    ]);
    expect(byKind[0]?.after).toMatchObject({ reason: "Weekend sale", costs: [{ currencyId: "coins", amount: 12 }] });
    const bare = await list({ target: "buy-potion" });
    expect(bare.map((e) => e.action)).toEqual(["economy.purchase.update", "config.import.purchase.change"]);
    expect((await list({ target: "purchase:buy-sword" })).map((e) => e.target)).toEqual(["purchase:buy-sword"]);
  });

  it("an import that changes nothing writes no row", async () => {
    const before = (await list({ action: "config.import" })).length;
    const doc = await caller(admin).config.export({ projectId: project.projectId });
    expect((await caller(admin).config.import({ projectId: project.projectId, document: doc })).changes).toBe(0);
    expect((await list({ action: "config.import" })).length).toBe(before);
  });

  it("another project's audit log does not show this import", async () => {
    const elsewhere = await makeProject();
    const theirs = await newOperator("OWNER", elsewhere.projectId);
    const found = await caller(theirs).audit.list({ projectId: elsewhere.projectId, limit: 100, importId });
    expect(found.entries).toEqual([]);
  });
});
