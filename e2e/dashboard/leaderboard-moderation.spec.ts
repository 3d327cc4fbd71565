import { expect, test } from "@playwright/test";
import { arena, mutate, playerWithScore } from "./board-fixtures";
import { seriousAxeFindings, shoot } from "./support";

/**
 * Leaderboard moderation on the board page: an operator corrects a score with a reason (ranks
 * move, the audit log keeps it), sets a score for a player not on the board, is told in words
 * when a score is out of bounds; each entry's metadata opens from a folded row; the board list
 * says when each board resets; on a phone the entries stack without sideways scrolling.
 */

test("an admin corrects a player's score with a reason: the ranks move at once and the audit log keeps before, after and the reason", async ({
  page,
}) => {
  const { projectId, ada, url } = await arena(page, "Moderation");
  await page.goto(url);
  const rows = page.getByTestId("entry-row");
  await expect(rows.first()).toContainText("Ada");
  await page.getByRole("button", { name: "Set score of Ada" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("heading", { name: "Set Ada's score" })).toBeVisible();
  await expect(dialog).toContainText("Now 300 (#1)");
  await expect(dialog.getByLabel("New score")).toHaveValue("300");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "leaderboard-set-score-dialog");
  await dialog.getByLabel("New score").fill("150");
  await dialog.getByLabel("Reason").fill("Ticket 77: replay shows a speed hack");
  await dialog.getByRole("button", { name: "Set score" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("Set Ada's score to 150 (was 300); now #2.")).toBeVisible();
  await expect(rows).toHaveText([/#1\s*Bo.*200/, /#2\s*Ada.*150/, /#3\s*Cy.*100/]);

  await page.goto(`/projects/${projectId}/audit`);
  const entry = page.getByText("leaderboard.entry.set").first();
  await expect(entry).toBeVisible();
  await expect(page.locator("body")).toContainText("Ticket 77: replay shows a speed hack");
  await expect(page.locator("body")).toContainText(`arena/${ada.playerId}`);
});

test("a score outside the board's bounds is refused in the dialog with a plain sentence, and nothing changes", async ({ page }) => {
  const { url } = await arena(page, "Bounds");
  await page.goto(url);
  await page.getByRole("button", { name: "Set score of Bo" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("New score").fill("10001");
  await dialog.getByRole("button", { name: "Set score" }).click();
  await expect(dialog.getByText("Scores on this board are from 0 to 10,000.")).toBeVisible();
  await expect(dialog.getByText("Give a reason (kept in the audit log).")).toBeVisible();
  await dialog.getByLabel("New score").fill("twelve");
  await expect(dialog.getByText("Enter a number.")).toBeVisible();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "leaderboard-set-score-refused");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("entry-row").nth(1)).toContainText("200");
});

test("an admin sets the score of a player who has no entry yet, by player id", async ({ page, request }) => {
  const { key, url } = await arena(page, "New entry");
  const session = await request.post("/api/v1/auth/anonymous", { headers: { "X-API-Key": key } });
  const { playerId } = (await session.json()) as { playerId: string };
  await page.goto(url);
  await page.getByRole("button", { name: "Set a player's score" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Player id").fill("not-an-id");
  await dialog.getByRole("button", { name: "Set score" }).click();
  await expect(dialog.getByText("Enter the player's id (a UUID).")).toBeVisible();
  await dialog.getByLabel("Player id").fill(playerId);
  await dialog.getByLabel("New score").fill("250");
  await dialog.getByLabel("Reason").fill("Lost run restored from the server log");
  await dialog.getByRole("button", { name: "Set score" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("entry-row")).toHaveCount(4);
  await expect(page.getByTestId("entry-row").nth(1)).toContainText("250");
  await expect(page.getByTestId("entries-total")).toHaveText("4 entries");
});

test("each entry's metadata is folded in its row and opens to the JSON the game attached", async ({ page }) => {
  const { url } = await arena(page, "Metadata");
  await page.goto(url);
  const ada = page.getByTestId("entry-row").filter({ hasText: "Ada" });
  const metadata = ada.getByTestId("entry-metadata");
  await expect(metadata.locator("summary")).toHaveText("character, level, replay");
  await expect(metadata.locator("pre")).toBeHidden();
  await metadata.locator("summary").click();
  await expect(metadata.locator("pre")).toContainText('"character": "mage"');
  await expect(metadata.locator("pre")).toContainText('"level": 12');
  await expect(page.getByTestId("entry-row").filter({ hasText: "Bo" })).toContainText("none");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "leaderboard-entry-metadata");
});

test("the board list says in words when each board resets next (weekly: Monday 00:00 UTC; no schedule: never)", async ({ page }) => {
  const { projectId } = await arena(page, "Resets");
  await mutate(page, "leaderboards.create", {
    projectId,
    board: { id: "forever", name: "Forever", sortOrder: "desc", operator: "latest" },
  });
  await page.goto(`/projects/${projectId}/leaderboards`);
  const weekly = page.getByTestId("leaderboard-row").filter({ hasText: "Arena" });
  const never = page.getByTestId("leaderboard-row").filter({ hasText: "Forever" });
  await expect(weekly.getByTestId("next-reset")).toContainText(/^resets in (\d+ (days?|hours?|minutes?)), Monday( \d+ \w+)? 00:00 UTC/);
  await expect(weekly.getByTestId("next-reset")).toContainText("weekly");
  await expect(never.getByTestId("next-reset")).toHaveText("never");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "leaderboards-next-reset");
  await page.goto(`/projects/${projectId}/leaderboards/arena`);
  await expect(page.getByTestId("leaderboard-next-reset")).toContainText(/^resets in .*Monday.* 00:00 UTC$/);
});

test("on a phone the entries stack without sideways scrolling, 10 to a page: rank, player, score and folded metadata per row", async ({
  page,
}) => {
  const { key, url } = await arena(page, "Phone");
  for (let i = 1; i <= 9; i++) await playerWithScore(page.request, key, "arena", `Extra ${i}`, i);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(url);
  const rows = page.getByTestId("entry-row");
  await expect(rows).toHaveCount(10);
  await expect(page.getByText("1–10 of 12")).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const first = rows.first();
  await expect(first.getByRole("button", { name: "Set score of Ada" })).toBeVisible();
  // The updated time is a secondary column, left out on a phone.
  await expect(first.locator("td").filter({ hasText: /\d{1,2}:\d{2}/ })).toBeHidden();
  expect(await first.evaluate((row) => row.getBoundingClientRect().height)).toBeLessThan(200);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "leaderboard-entries-phone");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("button", { name: "Next" }).click();
  await expect(rows).toHaveCount(2);
  await expect(page.getByText("11–12 of 12")).toBeVisible();
});
