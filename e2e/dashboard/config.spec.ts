import { expect, test } from "@playwright/test";
import { createProject, openProject, shoot, signIn } from "./support";

/**
 * Configuration as code in the browser: an access token is created (secret shown once) and used
 * for one change that the audit log then attributes to it; Demo Game's configuration is exported
 * and imported into a new project through dry run → diff → apply with confirmation; the token is
 * revoked (listed as revoked, refused at once). Screenshots go to test-results/screenshots/
 * (wide and phone-sized).
 */

test("create an access token; export Demo Game's configuration and import it into a new project; revoke the token", async ({ page }) => {
  const stamp = Date.now();
  const tokenName = `ci ${stamp}`;
  await signIn(page);

  await page.getByRole("link", { name: "Access tokens" }).click();
  await expect(page.getByRole("heading", { name: "Access tokens" })).toBeVisible();
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByText("Name the token.")).toBeVisible();
  await page.getByLabel("Name", { exact: true }).fill(tokenName);
  await page.getByRole("combobox", { name: "Maximum role" }).click();
  await page.getByRole("option", { name: /^Admin/ }).click();
  await expect(page.getByRole("combobox", { name: "Maximum role" })).toContainText("Admin");
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByTestId("new-token")).toHaveText(/^gbo_/);
  const secret = (await page.getByTestId("new-token").textContent()) ?? "";
  const tokenRow = page.getByTestId("token-row").filter({ hasText: tokenName });
  await expect(page.getByRole("cell", { name: tokenName, exact: true })).toBeVisible();
  await expect(tokenRow).toContainText("admin");
  await expect(tokenRow).toContainText("active");
  await shoot(page, "access-tokens");

  await page.goto("/projects");
  const targetId = await createProject(page, `Config target ${stamp}`);
  const targetUrl = page.url();

  // One change made with the token (no cookie is read with a Bearer token): the audit log names it.
  const viaToken = await page.request.post("/api/trpc/projects.createKey", {
    headers: { Authorization: `Bearer ${secret}` },
    data: { projectId: targetId, kind: "CLIENT", name: "made by a script" },
  });
  expect(viaToken.status()).toBe(200);

  await page.goto("/projects");
  await openProject(page, "Demo Game");
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Configuration" }).click();
  await expect(page.getByTestId("config-export")).toContainText('"version": 1');
  const exported = (await page.getByTestId("config-export").textContent()) ?? "";
  expect(exported).toContain('"high-scores"');
  await shoot(page, "configuration-export");

  await page.goto(`${targetUrl}/config`);
  await page.getByLabel("Configuration document").fill("{ not json");
  await page.getByRole("button", { name: "Dry run" }).click();
  await expect(page.getByText(/^Not JSON/)).toBeVisible();
  await shoot(page, "configuration-not-json");
  await page.getByLabel("Configuration document").fill(exported);
  await page.getByRole("button", { name: "Dry run" }).click();
  await expect(page.getByTestId("diff-row").first()).toBeVisible();
  const rows = await page.getByTestId("diff-row").count();
  expect(rows).toBeGreaterThanOrEqual(7);
  await shoot(page, "configuration-diff");
  await page.getByRole("button", { name: "Apply", exact: true }).click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toContainText(`${rows} created`);
  await expect(dialog).toContainText("0 changed");
  await expect(dialog).toContainText("0 deleted");
  await shoot(page, "configuration-apply");
  await dialog.getByRole("button", { name: "Apply changes" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status")).toContainText("Applied");
  await expect(page.getByTestId("config-export")).toContainText('"buy-sword"');

  // Deleting a currency that kept purchases still cost is refused: the row says why, nothing can be applied.
  const document = JSON.parse(exported) as { currencies: Array<{ id: string }> };
  const withoutGems = { ...document, currencies: document.currencies.filter((c) => c.id !== "gems") };
  await page.getByLabel("Configuration document").fill(JSON.stringify(withoutGems, null, 2));
  await page.getByRole("button", { name: "Dry run" }).click();
  const refusedRow = page.getByTestId("diff-row").filter({ hasText: "gems" });
  await expect(refusedRow).toContainText("delete");
  await expect(refusedRow).toContainText("IN_USE: Purchases refer to it: buy-sword.");
  await expect(page.getByText("Nothing can be applied while changes are refused")).toBeVisible();
  await expect(page.getByRole("button", { name: "Apply", exact: true })).toBeDisabled();
  await shoot(page, "configuration-refused");

  await page.goto(`${targetUrl}/audit`);
  const keyEntry = page.getByTestId("audit-row").filter({ hasText: "key.create" });
  await expect(keyEntry.getByTestId("audit-token")).toHaveText(`via token "${tokenName}"`);
  await expect(page.getByTestId("audit-row").filter({ hasText: "config.import" }).getByTestId("audit-token")).toHaveCount(0);
  await shoot(page, "audit-via-token");

  await page.goto("/tokens");
  await tokenRow.getByRole("button", { name: `Revoke ${tokenName}` }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Revoke token" }).click();
  await expect(tokenRow).toContainText("revoked");
  await expect(tokenRow.getByRole("button", { name: `Revoke ${tokenName}` })).toHaveCount(0);
  await shoot(page, "access-tokens-revoked");
  const refused = await page.request.get("/api/trpc/tokens.list", { headers: { Authorization: `Bearer ${secret}` } });
  expect(refused.status()).toBe(401);
});
