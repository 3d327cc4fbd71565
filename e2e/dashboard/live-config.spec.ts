import { expect, test } from "@playwright/test";
import { saveWithReason } from "./live-support";
import { createProject, seriousAxeFindings, shoot, signIn } from "./support";
import { trpcMutation } from "./support-players";

/**
 * Remote config: an operator creates a key, then overrides it for an audience in a time window
 * for a share of players; each save shows before → after and asks for a reason, and the window is
 * shown in UTC and in the operator's zone (Paris here). Screenshots: live-config*.png.
 */
test.use({ viewport: { width: 1280, height: 900 }, timezoneId: "Europe/Paris" });

test("an operator creates a key and overrides it for an audience in a window and a rollout, each change reviewed with a reason", async ({
  page,
}) => {
  await signIn(page);
  const projectId = await createProject(page, `Live config ${Date.now()}`);
  await trpcMutation(page, "remoteConfig.upsertAudience", {
    projectId,
    id: "payers",
    name: "Payers",
    rules: { all: [{ field: "storePurchases", gte: 1 }] },
    reason: "spec setup",
  });
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Live ops" }).click();
  await expect(page.getByRole("status").filter({ hasText: "No config keys yet." })).toBeVisible();

  await page.getByRole("button", { name: "New key" }).click();
  await page.getByLabel("Key", { exact: true }).fill("shop.discount");
  await page.getByLabel("Type").selectOption("number");
  await page.getByLabel("Default value").fill("0");
  await page.getByRole("button", { name: "Review change" }).click();
  await saveWithReason(page, { title: "Create shop.discount", before: "(nothing)", after: ['"defaultValue": 0'], reason: "weekend sale" });
  await expect(page.getByTestId("config-key-row")).toContainText("shop.discount");

  await page.getByRole("button", { name: "Overrides of shop.discount" }).click();
  await page.getByRole("button", { name: "Add override" }).click();
  await page.getByLabel("Audience", { exact: true }).selectOption("payers");
  await page.getByLabel("Value (number)").fill("20");
  await page.getByLabel("Rollout (% of the audience)").fill("25");
  await page.getByLabel("Starts (your time zone)").fill("2026-12-05T19:00");
  await page.getByLabel("Ends (your time zone)").fill("2026-12-07T23:00");
  await page.getByRole("button", { name: "Review override" }).click();
  const dialog = page.getByRole("dialog", { name: "Override shop.discount" });
  await dialog.getByRole("button", { name: "Save change" }).click();
  await expect(dialog.getByRole("alert")).toBeVisible();
  await saveWithReason(page, {
    title: "Override shop.discount",
    before: "(nothing)",
    after: ['"rolloutPercent": 25', '"startsAt": "2026-12-05T18:00:00.000Z"'],
    reason: "20 % off for payers this weekend",
  });
  const row = page.getByTestId("override-row");
  await expect(row).toContainText("payers");
  await expect(row).toContainText("25 %");
  await expect(row).toContainText("2026-12-05 18:00 UTC");
  await expect(row).toContainText("2026-12-05 19:00 Europe/Paris");
  await expect(row).toContainText("2026-12-07 22:00 UTC");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "live-config");

  await row.getByRole("button", { name: /^Edit/ }).click();
  await page.getByLabel("Rollout (% of the audience)").fill("50");
  await page.getByRole("button", { name: "Review override" }).click();
  await saveWithReason(page, {
    title: "Change an override of shop.discount",
    before: '"rolloutPercent": 25',
    after: ['"rolloutPercent": 50'],
    reason: "no complaints: widen",
  });
  await expect(row).toContainText("50 %");
});
