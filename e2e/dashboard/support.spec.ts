import { expect, test } from "@playwright/test";
import { shoot } from "./support";
import { anonymousPlayer, expectAxeClean, projectWithKeys, trpcMutation } from "./support-players";

/** Support on the dashboard: the player page's notes, tags, ban history and board entries; the players list's URL and "/". */
test.use({ viewport: { width: 1280, height: 900 } });

test("the player page shows the player's board entries and ban history, and an admin adds a note and a tag", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Support page");
  await trpcMutation(page, "leaderboards.create", {
    projectId,
    board: { id: "weekly", name: "Weekly", sortOrder: "desc", operator: "best", clientWritable: true },
  });
  const player = await anonymousPlayer(request, clientKey);
  const res = await request.post("/api/v1/leaderboards/weekly/scores", {
    headers: { "X-API-Key": clientKey, Authorization: `Bearer ${player.accessToken}` },
    data: { score: 4200 },
  });
  expect(res.status(), await res.text()).toBe(200);
  await trpcMutation(page, "players.ban", { projectId, playerId: player.playerId, reason: "speed hack" });
  await trpcMutation(page, "players.unban", { projectId, playerId: player.playerId });

  await page.goto(`/projects/${projectId}/players/${player.playerId}`);
  await expect(page.getByTestId("player-board-entry")).toContainText("Weekly");
  await expect(page.getByTestId("player-board-entry")).toContainText("#1");
  await expect(page.getByTestId("player-ban-history")).toHaveCount(2);
  await expect(page.getByTestId("player-ban-history").last()).toContainText("speed hack");
  await expect(page.getByTestId("player-last-seen")).not.toHaveText("never");

  await page.getByLabel("New note", { exact: true }).fill("Asked for a refund of the starter pack; declined, see the ticket.");
  await page.getByRole("button", { name: "Add note" }).click();
  await expect(page.getByTestId("player-note")).toContainText("Asked for a refund");
  await page.getByLabel("New tag").fill("Refund-2026");
  await page.getByRole("button", { name: "Add tag" }).click();
  await expect(page.getByTestId("player-tags")).toContainText("refund-2026");
  await page.getByLabel("New tag").fill("not a tag!");
  await page.getByRole("button", { name: "Add tag" }).click();
  await expect(page.getByText("Lowercase letters, digits and dashes")).toBeVisible();
  await expectAxeClean(page);
  await shoot(page, "support-player-page");
});

test("/ focuses the players search, but types normally inside a field", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Slash");
  await anonymousPlayer(request, clientKey);
  await page.goto(`/projects/${projectId}/players`);
  await expect(page.getByTestId("player-total")).toHaveText("1 player");
  const search = page.getByLabel("Search players");
  await expect(search).not.toBeFocused();
  await page.locator("body").press("/");
  await expect(search).toBeFocused();
  await expect(search).toHaveValue("");
  await page.getByLabel("Created from").focus();
  await page.keyboard.press("/");
  await expect(search).not.toBeFocused();
});

test("the players search and tag filter live in the URL and survive Back from a player's page", async ({ page, request }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "URL filters");
  const tagged = await anonymousPlayer(request, clientKey);
  await anonymousPlayer(request, clientKey);
  await trpcMutation(page, "support.setTags", { projectId, playerId: tagged.playerId, tags: ["vip"] });

  await page.goto(`/projects/${projectId}/players`);
  await expect(page.getByTestId("player-total")).toHaveText("2 players");
  await page.getByLabel("Tag", { exact: true }).click();
  await page.getByRole("option", { name: "vip (1)" }).click();
  await expect(page).toHaveURL(/tag=vip/);
  await expect(page.getByTestId("player-total")).toHaveText("1 player");
  await page.getByLabel("Search players").fill(tagged.playerId.slice(0, 8));
  await expect(page).toHaveURL(new RegExp(`q=${tagged.playerId.slice(0, 8)}`));
  await expectAxeClean(page);
  await shoot(page, "support-players-filtered");

  await page.getByRole("link", { name: tagged.playerId }).click();
  await expect(page.getByTestId("player-id")).toHaveText(tagged.playerId);
  await page.goBack();
  await expect(page.getByLabel("Search players")).toHaveValue(tagged.playerId.slice(0, 8));
  await expect(page.getByTestId("player-total")).toHaveText("1 player");

  // The same URL opened afresh (a shared link) shows the same list.
  await page.goto(page.url());
  await expect(page.getByTestId("player-total")).toHaveText("1 player");
});
