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

test("every project page has the project's name, the operator's role and all thirteen tabs on one line at 1280 px", async ({ page }) => {
  await signIn(page);
  const projectId = await createProject(page, "Frame check");
  await page.goto(`/projects/${projectId}/audit`);
  await expect(page.getByTestId("frame-project-name")).toHaveText("Frame check");
  const nav = page.getByRole("navigation", { name: "Project" });
  await expect(nav.getByRole("link", { name: "Audit log" })).toHaveAttribute("aria-current", "page");
  const tabs = nav.getByRole("link");
  await expect(tabs).toHaveCount(13);
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

test.describe("in a dark system theme", () => {
  test.use({ colorScheme: "dark" });
  /** Lightness 0…1 of a computed colour: Chromium computes Tailwind 4's oklch() palette to lab() or oklch() (L first), plain colours to rgb(). */
  const lightness = (colour: string) => {
    const numbers = (colour.match(/\d+(\.\d+)?/g) ?? []).map(Number);
    const [first = 0, g = 0, b = 0] = numbers;
    if (/^(ok)?(lab|lch)\(/.test(colour)) return first > 1 ? first / 100 : first;
    return (0.2126 * first + 0.7152 * g + 0.0722 * b) / 255;
  };

  test("the dashboard is dark, its text light, and axe finds no contrast failure on a project's pages and a dialog", async ({ page }) => {
    await signIn(page);
    const projectId = await createProject(page, "Dark check");
    const body = await page.evaluate(() => {
      const style = getComputedStyle(document.body);
      return { background: style.backgroundColor, color: style.color };
    });
    expect(lightness(body.background)).toBeLessThan(0.25);
    expect(lightness(body.color)).toBeGreaterThan(0.9);
    for (const tab of ["", "/keys", "/economy", "/audit"]) {
      await page.goto(`/projects/${projectId}${tab}`);
      await expect(page.getByRole("navigation", { name: "Project" })).toBeVisible();
      await page.waitForLoadState("networkidle");
      expect(await seriousAxeFindings(page), tab || "overview").toEqual([]);
    }
    await page.goto(`/projects/${projectId}`);
    await shoot(page, "layout-dark-overview");
    await page.getByRole("button", { name: /Delete project/ }).click();
    await expect(page.getByRole("alertdialog")).toBeVisible();
    expect(await seriousAxeFindings(page)).toEqual([]);
    await shoot(page, "layout-dark-dialog");
  });

  test("the sample game keeps its own colours", async ({ page }) => {
    await page.goto("/play");
    const root = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue("--color-white").trim());
    expect(["#fff", "#ffffff", "white"]).toContain(root.toLowerCase());
  });
});
