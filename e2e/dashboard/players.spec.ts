import { expect, test } from "@playwright/test";
import { shoot } from "./support";
import { anonymousPlayer, expectAxeClean, projectWithKeys, registeredPlayer, trpcMutation } from "./support-players";

/** Player support: search, filters and the total, bulk ban and grant, the player page's name, saves and layout. */
test("search by the start of an e-mail finds the player; a search nothing matches says what was searched", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Search");
  const stamp = Date.now();
  await registeredPlayer(request, clientKey, { email: `ada-${stamp}@studio.test`, displayName: "Ada" });
  await registeredPlayer(request, clientKey, { email: `grace-${stamp}@studio.test`, displayName: "Grace" });
  await anonymousPlayer(request, clientKey);
  await page.goto(`/projects/${projectId}/players`);
  await expect(page.getByTestId("player-total")).toHaveText("3 players");
  await expect(page.getByRole("columnheader", { name: "Last seen" })).toBeVisible();
  await page.getByLabel("Search players").fill(`GRACE-${stamp}`);
  await expect(page.getByTestId("player-row")).toHaveCount(1);
  await expect(page.getByTestId("player-row")).toContainText("Grace");
  await expect(page.getByTestId("player-total")).toHaveText("1 player");
  await expectAxeClean(page);
  await shoot(page, "players-search");
  await page.getByLabel("Search players").fill("zzz-nobody");
  await expect(page.getByText("No player's e-mail or id starts with “zzz-nobody”")).toBeVisible();
  await shoot(page, "players-no-match");
});

test("filters narrow the list and the total counts every match", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Filters");
  await registeredPlayer(request, clientKey, { email: `f1-${Date.now()}@studio.test`, displayName: "Has Mail" });
  await anonymousPlayer(request, clientKey);
  await anonymousPlayer(request, clientKey);
  await page.goto(`/projects/${projectId}/players`);
  await expect(page.getByTestId("player-total")).toHaveText("3 players");
  await page.getByLabel("E-mail", { exact: true }).click();
  await page.getByRole("option", { name: "No e-mail" }).click();
  await expect(page.getByTestId("player-total")).toHaveText("2 players");
  await page.getByLabel("Sign-in", { exact: true }).click();
  await page.getByRole("option", { name: "E-mail and password" }).click();
  await expect(page.getByText("No player matches these filters.")).toBeVisible();
  await page.getByRole("button", { name: "Clear filters" }).click();
  await page.getByLabel("Created from").fill("2099-01-01");
  await expect(page.getByTestId("player-total")).toHaveText("0 players");
  await expectAxeClean(page);
  await shoot(page, "players-filters");
});

test("bulk ban: two selected players are banned with one reason", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Bulk ban");
  await registeredPlayer(request, clientKey, { email: `b1-${Date.now()}@studio.test`, displayName: "Bot One" });
  await registeredPlayer(request, clientKey, { email: `b2-${Date.now()}@studio.test`, displayName: "Bot Two" });
  await registeredPlayer(request, clientKey, { email: `b3-${Date.now()}@studio.test`, displayName: "Innocent" });
  await page.goto(`/projects/${projectId}/players`);
  await page.getByLabel("Select Bot One").check();
  await page.getByLabel("Select Bot Two").check();
  await expect(page.getByTestId("bulk-actions")).toContainText("2 selected");
  await shoot(page, "players-selected");
  await page.getByRole("button", { name: "Ban 2 players…" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("button", { name: "Ban 2 players" }).click();
  await expect(dialog.getByText("Give a reason (the player sees it).")).toBeVisible();
  await dialog.getByLabel("Reason").fill("botting");
  await page.mouse.move(0, 0); // a hovered danger button is a lighter red (the shared Button's hover style)
  await expectAxeClean(page);
  await shoot(page, "players-bulk-ban-dialog");
  await dialog.getByRole("button", { name: "Ban 2 players" }).click();
  await expect(page.getByText("Banned 2 players.")).toBeVisible();
  await page.getByLabel("Ban state").click();
  await page.getByRole("option", { name: "Banned", exact: true }).click();
  await expect(page.getByTestId("player-total")).toHaveText("2 players");
  await expect(page.getByTestId("player-row").filter({ hasText: "Innocent" })).toHaveCount(0);
});

test("bulk grant: the selected players each get the currency, with one ledger row each", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Bulk grant");
  await trpcMutation(page, "economy.createCurrency", { projectId, currency: { id: "coins", name: "Coins", initialBalance: 0 } });
  const one = await registeredPlayer(request, clientKey, { email: `g1-${Date.now()}@studio.test`, displayName: "Gets Coins" });
  await registeredPlayer(request, clientKey, { email: `g2-${Date.now()}@studio.test`, displayName: "Also Coins" });
  await page.goto(`/projects/${projectId}/players`);
  await page.getByLabel("Select every player on this page").check();
  await page.getByRole("button", { name: "Grant to 2 players…" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Currency").click();
  await page.getByRole("option", { name: "Coins (coins)" }).click();
  await dialog.getByLabel("Amount").fill("250");
  await dialog.getByLabel("Reason").fill("server outage");
  await expectAxeClean(page);
  await shoot(page, "players-bulk-grant-dialog");
  await dialog.getByRole("button", { name: "Grant to 2 players" }).click();
  await expect(page.getByText("Granted to 2 players.")).toBeVisible();
  await page.goto(`/projects/${projectId}/players/${one.playerId}`);
  await expect(page.getByTestId("ledger-row")).toHaveCount(1);
  await expect(page.getByTestId("ledger-row")).toContainText("server outage");
});

test("the player page: the display name is edited in place, a save's JSON is shown, sessions come before the danger zone", async ({
  page,
  request,
}) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Player page");
  const p = await registeredPlayer(request, clientKey, { email: `pp-${Date.now()}@studio.test`, displayName: "Old Name" });
  const saved = await request.put("/api/v1/saves/slot-1", {
    headers: { "X-API-Key": clientKey, Authorization: `Bearer ${p.accessToken}` },
    data: { data: { level: 7, inventory: ["sword", "shield"] } },
  });
  expect(saved.status()).toBeLessThan(300);
  await page.goto(`/projects/${projectId}/players/${p.playerId}`);
  await page.getByRole("button", { name: "Edit name" }).click();
  await page.getByLabel("Display name").fill("x".repeat(40));
  await page.getByRole("button", { name: "Save name" }).click();
  await expect(page.getByText("Must be 1–32 characters after trimming.")).toBeVisible();
  await page.getByLabel("Display name").fill("New Name");
  await page.getByRole("button", { name: "Save name" }).click();
  await expect(page.getByRole("heading", { name: "New Name" })).toBeVisible();
  const headings = await page.getByRole("heading", { level: 2 }).allTextContents();
  expect(headings.indexOf("Active sessions")).toBeLessThan(headings.indexOf("Delete this player"));
  await expectAxeClean(page);
  await shoot(page, "player-detail");
  await page.getByRole("button", { name: "View slot-1" }).click();
  await expect(page.getByTestId("save-contents")).toContainText('"inventory": [');
  await expectAxeClean(page);
  await shoot(page, "player-save-dialog");
});
