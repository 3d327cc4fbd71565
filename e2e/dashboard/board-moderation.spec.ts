import { expect, test } from "@playwright/test";
import { arena, mutate } from "./board-fixtures";
import { seriousAxeFindings, shoot } from "./support";

/**
 * Moderation of a board's entries: a banned player's entry leaves the ranking and is listed apart
 * ("Hidden: banned", the ban's reason, a link to the player); entries are selected with
 * checkboxes and removed together with a reason, in one audited command.
 */
test.use({ viewport: { width: 1280, height: 900 } });

test("a banned player's entry is listed apart as hidden, with the ban's reason and a link to the player", async ({ page }) => {
  const { projectId, ada, url } = await arena(page, "Hidden");
  await mutate(page, "players.ban", { projectId, playerId: ada.playerId, reason: "Aimbot in ranked" });

  await page.goto(url);

  const rows = page.getByTestId("entry-row");
  await expect(rows).toHaveText([/#1\s*Bo.*200/, /#2\s*Cy.*100/]);
  const hidden = page.getByTestId("hidden-entries");
  await expect(hidden.getByRole("heading", { name: "Hidden: banned (1)" })).toBeVisible();
  const row = hidden.getByTestId("hidden-row");
  await expect(row).toContainText("Ada");
  await expect(row).toContainText("300");
  await expect(row).toContainText("Aimbot in ranked");
  await expect(row.getByRole("link", { name: "Ada" })).toHaveAttribute("href", `/projects/${projectId}/players/${ada.playerId}`);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "board-moderation-hidden");
});

test("an admin selects entries, ranked and hidden, and removes them together with a reason; the audit log keeps one row", async ({
  page,
}) => {
  const { projectId, ada, url } = await arena(page, "Bulk remove");
  await mutate(page, "players.ban", { projectId, playerId: ada.playerId, reason: "Aimbot in ranked" });
  await page.goto(url);
  await expect(page.getByTestId("entry-row")).toHaveCount(2);

  await page.getByRole("checkbox", { name: "Select Bo" }).check();
  await page.getByRole("checkbox", { name: "Select Ada (hidden)" }).check();
  await page.getByRole("button", { name: "Remove selected (2)" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("heading", { name: "Remove 2 entries?" })).toBeVisible();
  await dialog.getByRole("button", { name: "Remove 2 entries" }).click();
  await expect(dialog.getByText("Give a reason (kept in the audit log).")).toBeVisible();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "board-moderation-remove-selected");
  await dialog.getByLabel("Reason").fill("Botting ring, ticket 4412");
  await dialog.getByRole("button", { name: "Remove 2 entries" }).click();

  await expect(dialog).toBeHidden();
  await expect(page.getByText("Removed 2 entries (1 hidden by a ban).")).toBeVisible();
  await expect(page.getByTestId("entry-row")).toHaveText([/#1\s*Cy.*100/]);
  await expect(page.getByTestId("hidden-entries")).toHaveCount(0);
  await page.goto(`/projects/${projectId}/audit`);
  await expect(page.getByText("leaderboard.entries.remove")).toHaveCount(1);
  await expect(page.locator("body")).toContainText("Botting ring, ticket 4412");
});
