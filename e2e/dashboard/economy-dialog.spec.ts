import { expect, test } from "@playwright/test";
import { openProject, seriousAxeFindings, shoot, signIn } from "./support";
import { anonymousPlayer, expectAxeClean, projectWithKeys, trpcMutation } from "./support-players";

/** The Edit currency dialog is wide enough for its form (the wide dialog of components/ui/dialog.tsx), and clean for axe. */

test("the Edit currency dialog is wide on a wide screen and fits a phone, with no serious axe findings", async ({ page }) => {
  await signIn(page);
  await openProject(page, "Demo Game");
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Economy" }).click();
  await page.getByRole("button", { name: "Edit coins" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog.getByRole("heading", { name: /Edit the currency/ })).toBeVisible();
  const wide = await dialog.boundingBox();
  expect(wide?.width ?? 0).toBeGreaterThanOrEqual(700);
  expect(await seriousAxeFindings(page)).toEqual([]);
  // With a field's error showing (nothing is saved: the form refuses an empty name).
  await dialog.getByLabel("Currency name").fill("");
  await dialog.getByRole("button", { name: "Save currency" }).click();
  await expect(dialog.getByRole("alert")).toBeVisible();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "economy-edit-currency");
  await page.setViewportSize({ width: 390, height: 844 });
  const phone = await dialog.boundingBox();
  expect(phone?.width ?? 0).toBeLessThanOrEqual(390 - 2 * 16 + 1);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
});

test("a grant states the currency's maximum and the headroom, and refuses more than the headroom in words before asking", async ({
  page,
  request,
}) => {
  const setup = await projectWithKeys(page, "Headroom");
  await trpcMutation(page, "economy.createCurrency", {
    projectId: setup.projectId,
    currency: { id: "gems", name: "Gems", initialBalance: 0, maxBalance: 1000 },
  });
  const player = await anonymousPlayer(request, setup.clientKey);
  await trpcMutation(page, "economy.adjust", {
    projectId: setup.projectId,
    playerId: player.playerId,
    direction: "grant",
    currencies: [{ currencyId: "gems", amount: 900 }],
    reason: "setting up",
  });
  await page.goto(`/projects/${setup.projectId}/players/${player.playerId}`);
  await expect(page.getByTestId("balance-gems")).toContainText("900");
  await expect(page.getByTestId("grant-headroom")).toHaveText("Balance 900 of max 1,000: you can grant up to 100.");
  await page.getByLabel("Amount").fill("150");
  await page.getByLabel("Reason", { exact: true }).fill("too generous");
  await page.getByRole("button", { name: "Grant", exact: true }).click();
  await expect(page.getByText("That is more than the headroom: Gems is at 900 of max 1,000, so you can grant up to 100.")).toBeVisible();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expectAxeClean(page);
  await shoot(page, "grant-headroom");
  await page.getByLabel("Amount").fill("100");
  await page.getByRole("button", { name: "Grant", exact: true }).click();
  const confirm = page.getByRole("alertdialog");
  await expect(confirm).toContainText("Balance 900 of max 1,000: you can grant up to 100.");
  await confirm.getByRole("button", { name: "Grant", exact: true }).click();
  await expect(confirm).toHaveCount(0);
  await expect(page.getByTestId("balance-gems")).toContainText("1,000");
  await expect(page.getByTestId("grant-headroom")).toHaveText("Balance 1,000 of max 1,000: nothing more can be granted.");
});
