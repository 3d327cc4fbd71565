import { expect, type Page, test } from "@playwright/test";
import { seriousAxeFindings, shoot } from "./support";
import { type MadePlayer, projectWithKeys, registeredPlayer } from "./support-players";

/**
 * The moderation queue with reports filed through the game API: players report a cheater and a
 * spammer, the operator reviews the cheater's file and bans them from the queue.
 */
test.use({ viewport: { width: 1280, height: 900 } });

async function report(page: Page, clientKey: string, by: MadePlayer, target: MadePlayer, reason: string, note?: string) {
  const res = await page.request.post(`/api/v1/players/${target.playerId}/report`, {
    headers: { "X-API-Key": clientKey, Authorization: `Bearer ${by.accessToken}` },
    data: { reason, ...(note ? { note } : {}) },
  });
  expect(res.status(), await res.text()).toBe(202);
}

test("an admin reviews the most-reported player in the queue, bans them from it, and their reports leave the queue", async ({ page }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Moderation");
  const stamp = Date.now();
  const player = (name: string) => registeredPlayer(page.request, clientKey, { email: `${name}-${stamp}@example.com`, displayName: name });
  const [ada, bob, cy, cheater, spammer] = [
    await player("Ada"),
    await player("Bob"),
    await player("Cy"),
    await player("Speedy"),
    await player("Chatty"),
  ];
  await report(page, clientKey, ada, cheater, "cheating", "Finished the level in 2 seconds");
  await report(page, clientKey, bob, cheater, "cheating");
  await report(page, clientKey, cy, spammer, "spam", "Links in every message");

  await page.goto(`/projects/${projectId}`);
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Moderation" }).click();
  await page.getByLabel("Order").selectOption("most");
  await expect(page).toHaveURL(/sort=most/);
  const rows = page.getByTestId("moderation-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText("Speedy");
  await expect(rows.first()).toContainText("cheating ×2");
  await expect(rows.first()).toContainText("Finished the level in 2 seconds");
  await rows.first().getByRole("button", { name: "Review Speedy" }).click();
  await expect(page).toHaveURL(new RegExp(`open=${cheater.playerId}`));
  const detail = page.getByTestId("moderation-detail");
  await expect(detail).toContainText("Never banned.");
  await expect(detail.getByTestId("moderation-ban-state")).toHaveText("not banned");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "moderation-queue");

  await detail.getByLabel("Ban reason").fill("Speed hack");
  await detail.getByRole("button", { name: "Ban", exact: true }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Ban player" }).click();
  await expect(detail.getByTestId("moderation-ban-state")).toContainText("Speed hack");
  await expect(detail).toContainText("resolved: banned");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("Chatty");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "moderation-banned");
});
