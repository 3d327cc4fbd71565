import { expect, type Page, test } from "@playwright/test";
import { sql } from "./live-support";
import { seriousAxeFindings, shoot } from "./support";
import { anonymousPlayer, type MadePlayer, projectWithKeys, registeredPlayer } from "./support-players";

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
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Players" }).click();
  await page.getByRole("link", { name: "Moderation queue" }).click();
  await expect(page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Players" })).toHaveAttribute(
    "aria-current",
    "page",
  );
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

test("a flood of new accounts from one address is counted as 1 and ranks below three established reporters from three addresses", async ({
  page,
}) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Report flood");
  const stamp = Date.now();
  const flooded = await registeredPlayer(page.request, clientKey, { email: `flooded-${stamp}@example.com`, displayName: "Flooded" });
  const cheater = await registeredPlayer(page.request, clientKey, { email: `wallhack-${stamp}@example.com`, displayName: "Wallhack" });
  const veterans = [];
  for (let i = 0; i < 3; i++) veterans.push(await anonymousPlayer(page.request, clientKey));
  for (const v of veterans) await report(page, clientKey, v, cheater, "cheating");
  // Accounts two days old, each having filed from an address of its own: the dashboard suite's
  // server trusts no proxy, so every request of the spec comes from 127.0.0.1 and is given its
  // (keyed-hash) address here.
  const ids = veterans.map((v) => v.playerId);
  await sql("UPDATE players SET created_at = now() - interval '2 days' WHERE id = ANY($1)", [ids]);
  await sql("UPDATE player_reports SET reporter_address_hash = decode(md5(random()::text), 'hex') WHERE reporter_id = ANY($1)", [ids]);
  // Then twelve fresh accounts from the one address report the other player.
  for (let i = 0; i < 12; i++) await report(page, clientKey, await anonymousPlayer(page.request, clientKey), flooded, "cheating");

  await page.goto(`/projects/${projectId}/moderation`);
  const rows = page.getByTestId("moderation-row");
  await expect(rows).toHaveCount(2);
  // Newest first: the flood came last.
  await expect(rows.first()).toContainText("Flooded");
  await page.getByLabel("Order").selectOption("most");
  await expect(page).toHaveURL(/sort=most/);
  await expect(rows.first()).toContainText("Wallhack");
  await expect(rows.first().getByTestId("moderation-weight")).toHaveText("3");
  await expect(rows.first().getByTestId("moderation-why")).toHaveText(
    "3 reports from 3 reporters, counted as 3: 3 established accounts from 3 addresses",
  );
  await expect(rows.nth(1)).toContainText("Flooded");
  await expect(rows.nth(1)).toContainText("12 (12 reporters)");
  await expect(rows.nth(1).getByTestId("moderation-weight")).toHaveText("1");
  await expect(rows.nth(1).getByTestId("moderation-why")).toHaveText(
    "12 reports from 12 reporters, counted as 1: 12 new accounts from 1 address",
  );
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "moderation-flood");
});
