import { expect, test } from "@playwright/test";
import { acceptInvite, createProject, demo, INVITED_PASSWORD, invite, shoot, signIn } from "./support";

test("the account page lists this session as the current one; an instance admin sees the operators page", async ({ page }) => {
  await signIn(page);
  await page.getByRole("link", { name: "Account", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Account", exact: true })).toBeVisible();
  await expect(page.getByTestId("session-row").filter({ hasText: "this session" })).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Change password" })).toBeDisabled(); // until both fields are filled
  await expect(page.getByText(/8 to 128 characters, not a commonly used password/)).toBeVisible(); // before any refusal
  await shoot(page, "account");
  await page.getByRole("link", { name: "Operators", exact: true }).click();
  const self = page.getByTestId("operator-row").filter({ hasText: demo().operatorEmail });
  await expect(self).toHaveCount(1);
  await shoot(page, "operators");
  await expect(self.getByRole("button", { name: /Disable/ })).toHaveCount(0); // not oneself
});

for (const width of [375, 390]) {
  test(`the account page fits a phone ${width} wide: nothing pans sideways`, async ({ page }) => {
    await page.setViewportSize({ width, height: 844 });
    await signIn(page);
    await page.goto("/account");
    await expect(page.getByRole("heading", { name: "Account", exact: true })).toBeVisible();
    await expect(page.getByTestId("session-row").first()).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, "the page is wider than the phone's screen").toBeLessThanOrEqual(0);
    await shoot(page, `account-phone-${width}`);
  });
}

test("an instance admin removes an invited operator on the operators page; they can no longer sign in", async ({ page, browser }) => {
  await signIn(page);
  const projectId = await createProject(page, `Removal ${Date.now()}`);
  const email = `removed-${Date.now()}@studio.test`;
  await acceptInvite(browser, await invite(page, projectId, email), "Rita Removed");
  await page.goto("/operators");
  const row = page.getByTestId("operator-row").filter({ hasText: email });
  await expect(row.getByRole("button", { name: `Remove ${email}` })).toBeVisible();
  await shoot(page, "operators-with-member");
  await row.getByRole("button", { name: `Remove ${email}` }).click();
  await page.getByRole("button", { name: "Remove operator" }).click();
  await expect(page.getByText("Operator removed.")).toBeVisible();
  await expect(row).toHaveCount(0);
  const context = await browser.newContext();
  const removed = await context.newPage();
  await removed.goto("/login");
  await removed.getByLabel("E-mail").fill(email);
  await removed.getByLabel("Password").fill(INVITED_PASSWORD);
  await removed.getByRole("button", { name: "Sign in" }).click();
  await expect(removed.getByRole("alert").filter({ hasText: "E-mail or password is wrong." })).toBeVisible();
  await context.close();
});
