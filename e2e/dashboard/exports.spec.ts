import { expect, test } from "@playwright/test";
import { acceptInvite, INVITED_PASSWORD, invite, shoot, signIn } from "./support";
import { download, expectAxeClean, projectWithKeys, registeredPlayer, trpcMutation } from "./support-players";

/** Exports from the dashboard: each page's CSV / JSON links download the file the server streams. */
test("the players page downloads the filtered players as CSV", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Export players");
  await registeredPlayer(request, clientKey, { email: `e1-${Date.now()}@studio.test`, displayName: "=Formula" });
  await registeredPlayer(request, clientKey, { email: `e2-${Date.now()}@studio.test`, displayName: "Plain" });
  await page.goto(`/projects/${projectId}/players`);
  await page.getByLabel("Search players").fill("=form");
  await expect(page.getByTestId("player-total")).toHaveText("1 player");
  const file = await download(page, page.getByRole("link", { name: "Export these players as CSV" }));
  expect(file.name).toMatch(/^players-\d{4}-\d{2}-\d{2}\.csv$/);
  const lines = file.text.trimEnd().split("\r\n");
  expect(lines[0]).toBe("id,displayName,email,emailVerified,providers,createdAt,lastSeenAt,banned,bannedUntil,banReason");
  expect(lines).toHaveLength(2);
  expect(lines[1]).toContain(",'=Formula,");
  await expectAxeClean(page);
  await shoot(page, "exports-players");
});

test("a player's ledger downloads as JSON from the player page", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Export ledger");
  await trpcMutation(page, "economy.createCurrency", { projectId, currency: { id: "gems", name: "Gems", initialBalance: 0 } });
  const p = await registeredPlayer(request, clientKey, { email: `l-${Date.now()}@studio.test`, displayName: "Ledger" });
  const ref = { projectId, playerId: p.playerId, direction: "grant", items: [], reason: "welcome" };
  await trpcMutation(page, "economy.adjust", { ...ref, currencies: [{ currencyId: "gems", amount: 5 }] });
  await page.goto(`/projects/${projectId}/players/${p.playerId}`);
  await expect(page.getByTestId("ledger-row")).toHaveCount(1);
  const file = await download(page, page.getByRole("link", { name: "Export ledger as JSON" }));
  expect(file.name).toBe(`ledger-${p.playerId}-${new Date().toISOString().slice(0, 10)}.json`);
  const rows = JSON.parse(file.text) as Array<{ kind: string; reason: string }>;
  expect(rows.map((r) => [r.kind, r.reason])).toEqual([["grant", "welcome"]]);
  await expectAxeClean(page);
});

test("a leaderboard's entries download as CSV, best first, from the leaderboard page", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Export board");
  await trpcMutation(page, "leaderboards.create", {
    projectId,
    board: { id: "arena", name: "Arena", sortOrder: "desc", operator: "best" },
  });
  for (const [name, score] of [
    ["Low", 10],
    ["High", 90],
  ] as const) {
    const p = await registeredPlayer(request, clientKey, { email: `${name}-${Date.now()}@studio.test`, displayName: name });
    const res = await request.post("/api/v1/leaderboards/arena/scores", {
      headers: { "X-API-Key": clientKey, Authorization: `Bearer ${p.accessToken}` },
      data: { score },
    });
    expect(res.status()).toBe(200);
  }
  await page.goto(`/projects/${projectId}/leaderboards/arena`);
  const file = await download(page, page.getByRole("link", { name: "Export entries as CSV" }));
  const lines = file.text.trimEnd().split("\r\n");
  expect(lines[0]).toBe("rank,playerId,displayName,score,metadata,updatedAt,period");
  expect(lines.slice(1).map((l) => l.split(",").filter((_, i) => i === 0 || i === 2 || i === 3))).toEqual([
    ["1", "High", "90"],
    ["2", "Low", "10"],
  ]);
  await expectAxeClean(page);
  await shoot(page, "exports-leaderboard");
});

test("the audit page downloads the filtered entries as JSON", async ({ page }) => {
  const { projectId } = await projectWithKeys(page, "Export audit");
  await page.goto(`/projects/${projectId}/audit`);
  await page.getByLabel("Filter by action").click();
  await page.getByRole("option", { name: "key.*" }).click();
  await expect(page.getByTestId("audit-row")).toHaveCount(2);
  const file = await download(page, page.getByRole("link", { name: "Export these entries as JSON" }));
  const rows = JSON.parse(file.text) as Array<{ action: string }>;
  expect(rows.map((r) => r.action)).toEqual(["key.create", "key.create"]);
  await expectAxeClean(page);
});

test("a viewer gets the audit log's export but not the players' (personal data: admins and owners)", async ({ page, browser }) => {
  const { projectId } = await projectWithKeys(page, "Export viewer");
  const email = `viewer-${Date.now()}@studio.test`;
  await acceptInvite(browser, await invite(page, projectId, email), "Vera Viewer");
  const context = await browser.newContext();
  const viewer = await context.newPage();
  await signIn(viewer, email, INVITED_PASSWORD);
  await viewer.goto(`/projects/${projectId}/players`);
  await expect(viewer.getByRole("heading", { name: "Players" })).toBeVisible();
  await expect(viewer.getByRole("link", { name: "Export these players as CSV" })).toHaveCount(0);
  await expect(viewer.getByLabel("Select every player on this page")).toHaveCount(0);
  const refused = await viewer.request.get(`/api/dashboard/projects/${projectId}/exports/players`);
  expect(refused.status()).toBe(403);
  expect(await refused.json()).toMatchObject({ error: { code: "FORBIDDEN" } });
  await viewer.goto(`/projects/${projectId}/audit`);
  await expect(viewer.getByRole("link", { name: "Export these entries as CSV" })).toBeVisible();
  await context.close();
});
