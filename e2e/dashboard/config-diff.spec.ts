import { expect, test } from "@playwright/test";
import { createProject, openProject, seriousAxeFindings, shoot, signIn } from "./support";

/**
 * The configuration page's scroll regions: the export is a named region a keyboard can scroll;
 * a long dry-run diff scrolls in a focusable region with its long values cut, and "Expand" shows
 * every change in full ("Collapse" folds it again).
 */

test("the exported configuration is a named scroll region that takes keyboard focus", async ({ page }) => {
  await signIn(page);
  await openProject(page, "Demo Game");
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Configuration" }).click();
  const region = page.getByRole("region", { name: "Exported configuration (JSON)" });
  await expect(region.getByTestId("config-export")).toContainText('"version": 1');
  await expect(region).toHaveAttribute("tabindex", "0");
  await region.focus();
  await expect(region).toBeFocused();
  expect(await seriousAxeFindings(page)).toEqual([]);
});

test("a long dry-run diff scrolls in its own region, and Expand shows every change in full", async ({ page }) => {
  await signIn(page);
  await openProject(page, "Demo Game");
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Configuration" }).click();
  const exported = (await page.getByTestId("config-export").textContent()) ?? "";
  await page.goto("/projects");
  const projectId = await createProject(page, `Diff target ${Date.now()}`);
  await page.goto(`/projects/${projectId}/config`);
  await page.getByLabel("Configuration document").fill(exported);
  await page.getByRole("button", { name: "Dry run" }).click();
  const region = page.getByRole("region", { name: "Changes the import makes" });
  await expect(page.getByTestId("diff-row").first()).toBeVisible();
  const expand = page.getByRole("button", { name: "Expand" });
  await expect(expand).toHaveAttribute("aria-expanded", "false");
  await expect(region).toHaveAttribute("tabindex", "0");
  await expect(region).toContainText("…");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "config-diff-folded");

  await expand.click();
  const collapse = page.getByRole("button", { name: "Collapse" });
  await expect(collapse).toHaveAttribute("aria-expanded", "true");
  await expect(region).not.toHaveAttribute("tabindex", "0");
  await expect(region).not.toContainText("…");
  const fits = await region.evaluate((el) => el.scrollHeight <= el.clientHeight + 1);
  expect(fits).toBe(true);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "config-diff-expanded");
  await collapse.click();
  await expect(page.getByRole("button", { name: "Expand" })).toBeVisible();
});
