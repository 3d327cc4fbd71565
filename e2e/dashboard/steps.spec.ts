import { expect, test } from "@playwright/test";
import { createProject, INVITED_PASSWORD, invite, seriousAxeFindings, settled, shoot, signIn } from "./support";

/** The steps an operator expects after an action: confirm a plan change, open a new project, be signed in after an invite. */
// Tall: the plan's menu opens below the overview's health charts and must fit under them.
test.use({ viewport: { width: 1280, height: 1400 } });

/**
 * Opens the Plan menu with the Plan card at the top of the window, as an operator scrolls to it:
 * the overview's cards above it (health, revenue) leave it near the bottom of a fresh page, where
 * the menu's options would open below the window's edge. The cards above load on their own and
 * change height, so the card is scrolled to only once they have settled: Radix locks scrolling while
 * the menu is open, and a card pushed down after that leaves the options out of reach.
 */
async function openPlanMenu(page: import("@playwright/test").Page) {
  await settled(page);
  await page.getByTestId("plan").evaluate((card) => card.scrollIntoView({ block: "start" }));
  await page.getByLabel("Plan", { exact: true }).click();
}

test("a plan change asks first, naming the old and the new plan and limit; Cancel keeps the plan", async ({ page }) => {
  await signIn(page); // the seeded operator is an instance admin
  await createProject(page, `Plan ${Date.now()}`);
  await expect(page.getByTestId("plan")).toContainText("FREE");
  await openPlanMenu(page);
  await page.getByRole("option", { name: "Pro" }).click();
  await page.getByRole("button", { name: "Change plan" }).click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toContainText("From Free (100 requests/min) to Pro (1,000 requests/min).");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "steps-plan-confirm");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId("plan")).toContainText("FREE");
  await page.getByRole("button", { name: "Change plan" }).click();
  await dialog.getByRole("button", { name: "Change plan" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId("plan")).toContainText("PRO");
  await expect(page.getByTestId("plan")).toContainText("1,000 requests/min");
});

test("an Enterprise limit out of range is refused in plain words before anything is asked", async ({ page }) => {
  await signIn(page);
  await createProject(page, `Plan limit ${Date.now()}`);
  await openPlanMenu(page);
  await page.getByRole("option", { name: "Enterprise" }).click();
  await page.getByLabel("Requests per minute").fill("0");
  await page.getByRole("button", { name: "Change plan" }).click();
  await expect(page.getByText("Enter a whole number between 1 and 10,000,000.")).toBeVisible();
  await expect(page.getByRole("alertdialog")).toHaveCount(0);
  await page.getByLabel("Requests per minute").fill("50000");
  await page.getByRole("button", { name: "Change plan" }).click();
  await expect(page.getByRole("alertdialog")).toContainText("to Enterprise (50,000 requests/min)");
});

test("a new project opens as soon as it is created", async ({ page }) => {
  await signIn(page);
  const name = `Opens ${Date.now()}`;
  await page.getByLabel("Project name").fill(name);
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page).toHaveURL(/\/projects\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("project-name")).toHaveText(name);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "steps-new-project");
});

test("accepting an invite signs the new operator in and opens the project", async ({ page, browser }) => {
  await signIn(page);
  const name = `Invited ${Date.now()}`;
  const projectId = await createProject(page, name);
  const email = `joiner-${Date.now()}@studio.test`;
  const link = await invite(page, projectId, email);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const joiner = await context.newPage();
  await joiner.goto(link);
  await expect(joiner.getByText(`Join ${name} as viewer`)).toBeVisible();
  expect(await seriousAxeFindings(joiner)).toEqual([]);
  await shoot(joiner, "steps-invite");
  await joiner.getByLabel("Your name").fill("Jo Joiner");
  await joiner.getByLabel("Choose a password").fill(INVITED_PASSWORD);
  await joiner.getByRole("button", { name: "Create my account" }).click();
  await expect(joiner).toHaveURL(new RegExp(`/projects/${projectId}$`));
  await expect(joiner.getByTestId("project-name")).toHaveText(name);
  // Signed in for real: another dashboard page opens without the sign-in form.
  await joiner.goto("/account");
  await expect(joiner).toHaveURL(/\/account$/);
  await expect(joiner.getByTestId("operator-email")).toHaveText(email);
  await context.close();
});
