import { expect, test } from "@playwright/test";
import { demo, shoot, signIn } from "./support";

test("the account page lists this session as the current one; an instance admin sees the operators page", async ({ page }) => {
  await signIn(page);
  await page.getByRole("link", { name: "Account", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Account", exact: true })).toBeVisible();
  await expect(page.getByTestId("session-row").filter({ hasText: "this session" })).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Change password" })).toBeDisabled(); // until both fields are filled
  await shoot(page, "account");
  await page.getByRole("link", { name: "Operators", exact: true }).click();
  const self = page.getByTestId("operator-row").filter({ hasText: demo().operatorEmail });
  await expect(self).toHaveCount(1);
  await shoot(page, "operators");
  await expect(self.getByRole("button", { name: /Disable/ })).toHaveCount(0); // not oneself
});
