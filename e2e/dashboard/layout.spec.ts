import { expect, test } from "@playwright/test";
import { createProject, seriousAxeFindings, shoot, signIn } from "./support";

/** The project frame (app/(dashboard)/projects/[projectId]/layout.tsx) and the dashboard's shell. */
test.use({ viewport: { width: 1280, height: 900 } });

test("a malformed project URL shows 'Project not found' in plain words, not the validator's text", async ({ page }) => {
  await signIn(page);
  await page.goto("/projects/not-a-project-id/keys");
  await expect(page.getByRole("heading", { name: "Project not found" })).toBeVisible();
  await expect(page.getByText(/uuid|input\.projectId/i)).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Back to your projects" })).toBeVisible();
});

test("a well-formed id of a project the operator cannot see is 'Project not found' too", async ({ page }) => {
  await signIn(page);
  await page.goto("/projects/00000000-0000-4000-8000-000000000000/players");
  await expect(page.getByRole("heading", { name: "Project not found" })).toBeVisible();
});

test("every project page has the project's name, the operator's role and all ten tabs on one line at 1280 px", async ({ page }) => {
  await signIn(page);
  const projectId = await createProject(page, "Frame check");
  await page.goto(`/projects/${projectId}/audit`);
  await expect(page.getByTestId("frame-project-name")).toHaveText("Frame check");
  const nav = page.getByRole("navigation", { name: "Project" });
  await expect(nav.getByRole("link", { name: "Audit log" })).toHaveAttribute("aria-current", "page");
  const tabs = nav.getByRole("link");
  await expect(tabs).toHaveCount(10);
  const tops = await tabs.evaluateAll((links) => links.map((l) => Math.round(l.getBoundingClientRect().top)));
  expect(new Set(tops).size).toBe(1);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "layout-frame");
});

test("the skip link is the first thing Tab reaches and moves focus past the header to the page's content", async ({ page }) => {
  await signIn(page);
  await page.keyboard.press("Tab");
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.locator("main#main")).toBeFocused();
});
