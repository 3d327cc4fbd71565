import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { E2E_DATA_DIR } from "../../playwright.config";

/**
 * Configuration as code in the browser: an access token is created (secret shown once), Demo
 * Game's configuration is exported and imported into a new project through dry run → diff →
 * apply with confirmation.
 */
type Demo = { operatorEmail: string; operatorPassword: string };
const demo = (): Demo => JSON.parse(readFileSync(path.join(E2E_DATA_DIR, "demo.json"), "utf8")) as Demo;
const SHOTS = path.join(import.meta.dirname, "../../test-results/screenshots");

async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

test("create an access token; export Demo Game's configuration and import it into a new project", async ({ page }) => {
  const stamp = Date.now();
  await page.goto("/login");
  await page.getByLabel("E-mail").fill(demo().operatorEmail);
  await page.getByLabel("Password").fill(demo().operatorPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Projects", exact: true })).toBeVisible();

  await page.getByRole("link", { name: "Access tokens" }).click();
  await expect(page.getByRole("heading", { name: "Access tokens" })).toBeVisible();
  await page.getByLabel("Name", { exact: true }).fill(`ci ${stamp}`);
  await page.getByLabel("Maximum role").selectOption("ADMIN");
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByTestId("new-token")).toHaveText(/^gbo_/);
  await expect(page.getByRole("cell", { name: `ci ${stamp}` })).toBeVisible();
  await shoot(page, "access-tokens");

  await page.goto("/projects");
  await page.getByLabel("Project name").fill(`Config target ${stamp}`);
  await page.getByRole("button", { name: "Create project" }).click();
  await page.getByRole("link", { name: `Config target ${stamp}` }).click();
  await expect(page.getByTestId("project-name")).toHaveText(`Config target ${stamp}`);
  const targetUrl = page.url();

  await page.goto("/projects");
  await page.getByRole("link", { name: "Demo Game", exact: true }).click();
  await page.getByRole("link", { name: "Configuration" }).click();
  await expect(page.getByTestId("config-export")).toContainText('"version": 1');
  const exported = (await page.getByTestId("config-export").textContent()) ?? "";
  expect(exported).toContain('"high-scores"');
  await shoot(page, "configuration-export");

  await page.goto(`${targetUrl}/config`);
  await page.getByLabel("Configuration document").fill(exported);
  await page.getByRole("button", { name: "Dry run" }).click();
  await expect(page.getByTestId("diff-row").first()).toBeVisible();
  expect(await page.getByTestId("diff-row").count()).toBeGreaterThanOrEqual(7);
  await shoot(page, "configuration-diff");
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByRole("status")).toContainText("Applied");
  await expect(page.getByTestId("config-export")).toContainText('"buy-sword"');
});
