import { expect, type Page, test } from "@playwright/test";
import { signIn } from "./support";

/** Every column header says what its column is: a column of buttons has a visually hidden "Actions". */

const emptyHeaders = (page: Page) =>
  page.locator("main th").evaluateAll((ths) => ths.filter((th) => (th.textContent ?? "").trim() === "").length);

test("no table header is empty: the account's sessions and the operators tables name every column", async ({ page }) => {
  await signIn(page);
  for (const url of ["/account", "/operators"]) {
    await page.goto(url);
    await expect(page.locator("main th").first()).toBeAttached();
    expect(await emptyHeaders(page), url).toBe(0);
  }
  await page.goto("/operators");
  await expect(page.getByRole("columnheader", { name: "Actions" })).toBeAttached();
});
