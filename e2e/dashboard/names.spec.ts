import { expect, test } from "@playwright/test";
import { createKey, createProject, seriousAxeFindings, shoot, signIn } from "./support";

/** Equal names are allowed (a key being rotated keeps its name); dialogs and pickers say which one. */
test.use({ viewport: { width: 1280, height: 900 } });

test("two keys named alike: each revoke dialog names its own key's prefix and creation date", async ({ page }) => {
  await signIn(page);
  const projectId = await createProject(page, `Names keys ${Date.now()}`);
  await page.goto(`/projects/${projectId}/keys`);
  const first = await createKey(page, "SERVER", "ci-server");
  const second = await createKey(page, "SERVER", "ci-server");
  const rows = page.getByRole("row", { name: /ci-server/ });
  await expect(rows).toHaveCount(2);
  // The table shows each key's prefix (its secret's first characters).
  const prefixes = (await page.locator("td .font-mono").allTextContents()).map((t) => t.replace("…", ""));
  expect(prefixes).toHaveLength(2);
  expect(prefixes.every((p) => first.startsWith(p) || second.startsWith(p))).toBe(true);
  const [one = "", other = ""] = prefixes;
  await page.getByRole("button", { name: `Revoke ci-server (${one}…)` }).click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toContainText('Revoke "ci-server"?');
  await expect(dialog.getByTestId("revoke-key-identity")).toContainText(`${one}…`);
  await expect(dialog.getByTestId("revoke-key-identity")).not.toContainText(other);
  await expect(dialog.getByTestId("revoke-key-identity")).toContainText("created");
  await expect(dialog.getByTestId("revoke-key-identity")).toContainText("last used never");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "names-revoke-key");
  await dialog.getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByRole("row", { name: new RegExp(`${one}.*revoked`) })).toHaveCount(1);
  await expect(page.getByRole("button", { name: `Revoke ci-server (${other}…)` })).toBeVisible();
});

test("rotating a key shows the new key once and keeps the old one working for 24 hours, marked in the table", async ({ page }) => {
  await signIn(page);
  const projectId = await createProject(page, `Rotate keys ${Date.now()}`);
  await page.goto(`/projects/${projectId}/keys`);
  const old = await createKey(page, "CLIENT", "ios-build");
  const prefix = old.slice(0, "gb_client_".length + 6);
  await page.getByRole("button", { name: `Rotate ios-build (${prefix}…)` }).click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toContainText("keeps working for 24 hours");
  await dialog.getByRole("button", { name: "Rotate key" }).click();
  const rotated = (await page.getByTestId("rotated-key").textContent()) ?? "";
  expect(rotated).toMatch(/^gb_client_/);
  expect(rotated).not.toBe(old);
  await expect(page.getByRole("row", { name: new RegExp(`${prefix}.*works until`) })).toHaveCount(1);
  await expect(page.getByRole("row", { name: /ios-build.*active/ })).toHaveCount(1);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "keys-rotated");
  await page.getByRole("button", { name: "Done" }).click();
  await expect(page.getByTestId("rotated-key")).toHaveCount(0);
});

test("two projects named alike are told apart by their creation date in the list and the token form's picker", async ({ page }) => {
  const name = `Twin ${Date.now()}`;
  await signIn(page);
  await createProject(page, name);
  await page.goto("/projects");
  await createProject(page, name);
  await page.goto("/projects");
  await expect(page.getByRole("columnheader", { name: "Created" })).toBeVisible();
  const today = new Date().toLocaleDateString("en-GB", { day: "numeric", month: "short", year: "numeric" });
  await expect(page.getByRole("row", { name: new RegExp(`${name}.*${today}`) })).toHaveCount(2);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "names-projects");
  await page.goto("/tokens");
  await page.getByLabel("All my projects (also ones added later)").uncheck();
  const picks = page.locator("label").filter({ hasText: name });
  await expect(picks).toHaveCount(2);
  for (const pick of await picks.all()) await expect(pick).toContainText(`created ${today}`);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "names-token-picker");
});
