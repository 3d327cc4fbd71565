import { expect, test } from "@playwright/test";
import { saveWithReason } from "./live-support";
import { seriousAxeFindings, shoot } from "./support";
import { anonymousPlayer, projectWithKeys, registeredPlayer } from "./support-players";

/**
 * Audiences: an operator builds rules row by row and the preview counts the players who match
 * now (two of three players here have an e-mail); the saved audience shows the same count.
 * Screenshots: live-audiences*.png.
 */
test.use({ viewport: { width: 1280, height: 900 } });

test("an operator builds an audience from rules and the preview counts the players who match", async ({ page }) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Live audiences");
  await registeredPlayer(page.request, clientKey, { email: `a-${Date.now()}@players.test` });
  await registeredPlayer(page.request, clientKey, { email: `b-${Date.now()}@players.test` });
  await anonymousPlayer(page.request, clientKey);

  await page.goto(`/projects/${projectId}/live/audiences`);
  await expect(page.getByRole("status").filter({ hasText: "No audiences yet." })).toBeVisible();
  await page.getByRole("button", { name: "New audience" }).click();
  await page.getByLabel("Audience id").fill("with-email");
  await page.getByLabel("Name", { exact: true }).fill("Players with e-mail");
  await page.getByLabel("Rule 1 field").selectOption("hasEmail");
  await page.getByLabel("Rule 1 value").fill("true");
  const preview = page.getByTestId("audience-preview");
  await expect(preview).toHaveText("2 players match now");
  await page.getByRole("button", { name: "Add rule" }).click();
  await page.getByLabel("Rule 2 field").selectOption("signInMethod");
  await page.getByLabel("Rule 2 value").fill("anonymous");
  await expect(preview).toHaveText("0 players match now");
  await page.getByRole("button", { name: "Remove rule 2" }).click();
  await expect(preview).toHaveText("2 players match now");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "live-audiences-builder");

  await page.getByRole("button", { name: "Review audience" }).click();
  await saveWithReason(page, {
    title: "Create Players with e-mail",
    before: "(nothing)",
    after: ['"field": "hasEmail"'],
    reason: "newsletter offer",
  });
  await expect(page.getByTestId("audience-matching")).toHaveText("2 players match now");
  await shoot(page, "live-audiences");
});

test("a Player data rule says that only values the server wrote match", async ({ page }) => {
  const { projectId } = await projectWithKeys(page, "Live audiences data");
  await page.goto(`/projects/${projectId}/live/audiences`);
  await page.getByRole("button", { name: "New audience" }).click();
  await expect(page.getByTestId("rule-note")).toHaveCount(0);
  await page.getByLabel("Rule 1 field").selectOption("data");
  await expect(page.getByTestId("rule-note")).toHaveText(/Matches only values your server wrote/);
});
