import { expect, test } from "@playwright/test";
import { openProject, seriousAxeFindings, shoot, signIn } from "./support";

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
