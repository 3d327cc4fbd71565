import { expect, test } from "@playwright/test";
import { anotherOperator } from "./board-fixtures";
import { seriousAxeFindings, shoot, signIn } from "./support";

/** The instance's Operators page on a phone: the table stacks into cards, nothing scrolls sideways. */

test("on a phone the Operators table fits the screen: rows stack, no sideways scrolling", async ({ page, browser }) => {
  await signIn(page);
  // A second operator, so a row has its Remove and Disable buttons.
  const { email } = await anotherOperator(page, browser, "Phone check");
  await page.goto("/operators");
  const row = page.getByTestId("operator-row").filter({ hasText: email });
  await expect(row.getByRole("button", { name: `Disable ${email}` })).toBeVisible();
  await shoot(page, "operators");
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(row).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  expect(await row.evaluate((r) => r.scrollWidth > r.clientWidth + 1)).toBe(false);
  // Below the fold when earlier specs made many operators: scrolled down to, it is within the width.
  const remove = row.getByRole("button", { name: `Remove ${email}` });
  await remove.scrollIntoViewIfNeeded();
  const box = await remove.boundingBox();
  expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
  expect(await seriousAxeFindings(page)).toEqual([]);
});
