import { beforeAll, describe, expect, it } from "vitest";
import { prisma } from "@/server/db";
import type { SessionOperator } from "@/server/identity/operator";
import { submitScore } from "@/server/services/leaderboards/entries";
import { api } from "../support/api";
import { anonymousPlayer, makeProject, type TestPlayer, type TestProject } from "../support/fixtures";
import { caller, newOperator, trpcRefusal } from "../support/operators";

/**
 * The game-facing dashboard procedures (leaderboards, economy) called through tRPC's caller as
 * the browser reaches them: roles checked on the server, every change audited in its transaction.
 */

const audits = (projectId: string, action: string) =>
  prisma().auditEntry.findMany({ where: { projectId, action }, orderBy: { id: "asc" } });

let project: TestProject;
let players: TestPlayer[];
let admin: ReturnType<typeof caller>;
let adminOp: SessionOperator;
let viewer: ReturnType<typeof caller>;
let stranger: ReturnType<typeof caller>;

beforeAll(async () => {
  project = await makeProject();
  players = await Promise.all([0, 1, 2].map(() => anonymousPlayer(project.clientKey)));
  adminOp = await newOperator("ADMIN", project.projectId);
  admin = caller(adminOp, "req-game-admin");
  viewer = caller(await newOperator("VIEWER", project.projectId));
  stranger = caller(await newOperator(null, project.projectId));
  await admin.leaderboards.create({
    projectId: project.projectId,
    board: { id: "arena", name: "Arena", sortOrder: "desc", operator: "best", resetSchedule: "weekly" },
  });
  for (const [i, p] of players.entries()) {
    await prisma().player.update({ where: { id: p.playerId }, data: { displayName: `Racer ${i}` } });
    await submitScore({
      actor: { kind: "player", projectId: project.projectId, playerId: p.playerId, via: "server-key" },
      leaderboardId: "arena",
      score: 100 * (i + 1),
    });
  }
});

describe("dashboard leaderboards", () => {
  it("a viewer reads boards, pages and searches entries; every change is FORBIDDEN and nothing changes", async () => {
    const { projectId } = project;
    expect((await viewer.leaderboards.list({ projectId })).map((b) => b.id)).toEqual(["arena"]);
    const page = await viewer.leaderboards.entries({ projectId, id: "arena", limit: 2 });
    expect(page.total).toBe(3);
    expect(page.entries.map((e) => [e.rank, e.displayName])).toEqual([
      [1, "Racer 2"],
      [2, "Racer 1"],
    ]);
    const found = await viewer.leaderboards.search({ projectId, id: "arena", query: "acer 0" });
    expect(found.entries.map((e) => [e.rank, e.playerId])).toEqual([[3, players[0]?.playerId]]);
    const byId = await viewer.leaderboards.search({ projectId, id: "arena", query: players[1]?.playerId ?? "" });
    expect(byId.entries.map((e) => e.rank)).toEqual([2]);
    const forbidden = { code: "FORBIDDEN", appCode: "FORBIDDEN" };
    expect(await trpcRefusal(viewer.leaderboards.update({ projectId, id: "arena", patch: { name: "forged" } }))).toMatchObject(forbidden);
    expect(await trpcRefusal(viewer.leaderboards.reset({ projectId, id: "arena" }))).toMatchObject(forbidden);
    expect(await trpcRefusal(viewer.leaderboards.delete({ projectId, id: "arena" }))).toMatchObject(forbidden);
    expect(
      await trpcRefusal(viewer.leaderboards.removeEntry({ projectId, id: "arena", playerId: players[0]?.playerId ?? "" })),
    ).toMatchObject(forbidden);
    expect(
      await trpcRefusal(
        viewer.leaderboards.create({ projectId, board: { id: "forged", name: "x", sortOrder: "asc", operator: "latest" } }),
      ),
    ).toMatchObject(forbidden);
    expect((await viewer.leaderboards.get({ projectId, id: "arena" })).name).toBe("Arena");
    expect((await viewer.leaderboards.entries({ projectId, id: "arena" })).total).toBe(3);
  });

  it("a non-member gets NOT_FOUND for reads and writes", async () => {
    const { projectId } = project;
    expect(await trpcRefusal(stranger.leaderboards.list({ projectId }))).toMatchObject({ code: "NOT_FOUND", appCode: "NOT_FOUND" });
    expect(await trpcRefusal(stranger.leaderboards.reset({ projectId, id: "arena" }))).toMatchObject({ code: "NOT_FOUND" });
    expect(await trpcRefusal(stranger.economy.holdings({ projectId, playerId: players[0]?.playerId ?? "" }))).toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("an admin edits (sort order and operator stay fixed), removes an entry (ranks move up), resets; each change audited with before/after", async () => {
    const { projectId } = project;
    const edited = await admin.leaderboards.update({ projectId, id: "arena", patch: { name: "Arena S1", maxScore: 10_000 } });
    expect(edited).toMatchObject({ name: "Arena S1", maxScore: 10_000, sortOrder: "desc", operator: "best" });
    expect(await trpcRefusal(admin.leaderboards.update({ projectId, id: "arena", patch: { sortOrder: "asc" } as never }))).toMatchObject({
      appCode: "VALIDATION_ERROR",
    });
    const [update] = await audits(projectId, "leaderboard.update");
    expect(update?.before).toMatchObject({ name: "Arena", maxScore: null });
    expect(update?.after).toMatchObject({ name: "Arena S1", maxScore: 10_000 });
    expect(update?.requestId).toBe("req-game-admin");

    await admin.leaderboards.removeEntry({ projectId, id: "arena", playerId: players[2]?.playerId ?? "" });
    const page = await admin.leaderboards.entries({ projectId, id: "arena" });
    expect(page.entries.map((e) => [e.rank, e.displayName])).toEqual([
      [1, "Racer 1"],
      [2, "Racer 0"],
    ]);
    const [removed] = await audits(projectId, "leaderboard.entry.remove");
    expect(removed).toMatchObject({ target: `arena/${players[2]?.playerId}`, before: { score: 300 } });

    const reset = await admin.leaderboards.reset({ projectId, id: "arena" });
    expect((await admin.leaderboards.entries({ projectId, id: "arena" })).total).toBe(0);
    const periods = await viewer.leaderboards.periods({ projectId, id: "arena" });
    expect(periods.find((p) => p.period === reset.archived)).toMatchObject({ entries: 2, current: false });
    const archived = await viewer.leaderboards.entries({ projectId, id: "arena", period: reset.archived, limit: 1, offset: 1 });
    expect(archived.entries.map((e) => [e.rank, e.displayName])).toEqual([[2, "Racer 0"]]);
    expect((await audits(projectId, "leaderboard.reset"))[0]).toMatchObject({
      before: { period: reset.archived },
      after: { period: reset.period },
    });
    expect((await viewer.leaderboards.top({ projectId })).boards).toEqual([expect.objectContaining({ id: "arena", entries: 0 })]);
  });

  it("a failed change writes no audit entry (same transaction)", async () => {
    const { projectId } = project;
    expect(
      await trpcRefusal(admin.leaderboards.removeEntry({ projectId, id: "arena", playerId: players[0]?.playerId ?? "" })),
    ).toMatchObject({
      appCode: "ENTRY_NOT_FOUND",
    });
    expect(await audits(projectId, "leaderboard.entry.remove")).toHaveLength(1);
  });
});

describe("dashboard economy", () => {
  it("definitions: create, edit; a referenced currency or item refuses deletion with IN_USE (the currency naming the purchase); the creates and the edit audited, the refused deletes not; a viewer's create and delete FORBIDDEN", async () => {
    const { projectId } = project;
    await admin.economy.createCurrency({ projectId, currency: { id: "coins", name: "Coins", initialBalance: 10 } });
    await admin.economy.createItem({ projectId, item: { id: "sword", name: "Sword", maxStack: 5 } });
    await admin.economy.createPurchase({
      projectId,
      purchase: {
        id: "buy-sword",
        name: "Buy a sword",
        costs: [{ currencyId: "coins", amount: 30 }],
        rewards: [{ itemId: "sword", quantity: 1 }],
      },
    });
    expect(await admin.economy.updateCurrency({ projectId, id: "coins", patch: { name: "Gold coins" } })).toMatchObject({
      name: "Gold coins",
    });
    const inUse = await trpcRefusal(admin.economy.deleteCurrency({ projectId, id: "coins" }));
    expect(inUse).toMatchObject({ code: "CONFLICT", appCode: "IN_USE" });
    expect(inUse.message).toContain("buy-sword");
    expect(await trpcRefusal(admin.economy.deleteItem({ projectId, id: "sword" }))).toMatchObject({ appCode: "IN_USE" });
    expect((await viewer.economy.currencies({ projectId })).map((c) => c.id)).toEqual(["coins"]);
    expect(await audits(projectId, "economy.currency.delete")).toHaveLength(0);
    const [update] = await audits(projectId, "economy.currency.update");
    expect(update).toMatchObject({ before: { name: "Coins" }, after: { name: "Gold coins" } });
    for (const kind of ["currency", "item", "purchase"]) expect(await audits(projectId, `economy.${kind}.create`)).toHaveLength(1);
    expect(await trpcRefusal(viewer.economy.createCurrency({ projectId, currency: { id: "gems", name: "Gems" } }))).toMatchObject({
      code: "FORBIDDEN",
    });
    expect(await trpcRefusal(viewer.economy.deletePurchase({ projectId, id: "buy-sword" }))).toMatchObject({ code: "FORBIDDEN" });
  });

  it("a grant shows in the ledger as the operator's change with its reason and request id, in the API's balance, and in the audit log", async () => {
    const { projectId } = project;
    const p = players[0];
    if (!p) throw new Error("no player");
    await admin.economy.adjust({
      projectId,
      playerId: p.playerId,
      direction: "grant",
      currencies: [{ currencyId: "coins", amount: 50 }],
      items: [{ itemId: "sword", quantity: 2 }],
      reason: "refund for ticket 12",
    });
    const balance = await api<Array<{ id: string; balance: number }>>("GET", "/api/v1/economy/currencies", {
      key: project.clientKey,
      token: p.accessToken,
    });
    expect(balance.body).toEqual([expect.objectContaining({ id: "coins", balance: 60 })]);
    const holdings = await viewer.economy.holdings({ projectId, playerId: p.playerId });
    expect(holdings.balances).toEqual([expect.objectContaining({ id: "coins", balance: 60, started: true })]);
    expect(holdings.inventory).toEqual([expect.objectContaining({ itemId: "sword", quantity: 2 })]);
    const ledger = await viewer.economy.ledger({ projectId, playerId: p.playerId });
    expect(ledger.transactions[0]).toMatchObject({
      kind: "grant",
      reason: "refund for ticket 12",
      requestId: "req-game-admin",
      actor: { kind: "operator", id: adminOp.id, label: adminOp.email },
      currencies: [{ id: "coins", delta: 50, balance: 60 }],
    });
    const [audit] = await audits(projectId, "economy.grant");
    expect(audit).toMatchObject({
      target: p.playerId,
      before: { balances: [{ id: "coins", balance: 10 }], inventory: [{ itemId: "sword", quantity: 0 }] },
      after: { reason: "refund for ticket 12", balances: [{ id: "coins", balance: 60 }] },
    });
    // The player holds coins now: the currency still refuses deletion.
    expect(await trpcRefusal(admin.economy.deleteCurrency({ projectId, id: "coins" }))).toMatchObject({ appCode: "IN_USE" });
  });

  it("a revoke past the balance is refused, changes nothing and writes no audit; a viewer's forged grant is FORBIDDEN", async () => {
    const { projectId } = project;
    const playerId = players[1]?.playerId ?? "";
    expect(
      await trpcRefusal(
        admin.economy.adjust({ projectId, playerId, direction: "revoke", currencies: [{ currencyId: "coins", amount: 11 }], reason: "x" }),
      ),
    ).toMatchObject({ appCode: "INSUFFICIENT_FUNDS" });
    expect(
      await trpcRefusal(
        viewer.economy.adjust({
          projectId,
          playerId,
          direction: "grant",
          currencies: [{ currencyId: "coins", amount: 1 }],
          reason: "forged",
        }),
      ),
    ).toMatchObject({ code: "FORBIDDEN" });
    expect(await audits(projectId, "economy.revoke")).toHaveLength(0);
    expect((await viewer.economy.ledger({ projectId, playerId })).transactions).toHaveLength(0);
    const totals = await viewer.economy.totals({ projectId });
    expect(totals).toEqual([expect.objectContaining({ id: "coins", total: "60", holders: 1 })]);
  });

  it("the ledger pages by cursor, newest first", async () => {
    const { projectId } = project;
    const playerId = players[2]?.playerId ?? "";
    for (const amount of [1, 2, 3]) {
      await admin.economy.adjust({
        projectId,
        playerId,
        direction: "grant",
        currencies: [{ currencyId: "coins", amount }],
        reason: `r${amount}`,
      });
    }
    const first = await viewer.economy.ledger({ projectId, playerId, limit: 2 });
    expect(first.transactions.map((t) => t.reason)).toEqual(["r3", "r2"]);
    const second = await viewer.economy.ledger({ projectId, playerId, limit: 2, cursor: first.nextCursor });
    expect(second.transactions.map((t) => t.reason)).toEqual(["r1"]);
    expect(second.nextCursor).toBeNull();
  });
});
