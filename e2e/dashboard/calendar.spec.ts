import { expect, test } from "@playwright/test";
import { seriousAxeFindings, shoot } from "./support";
import { potionShop, projectWithKeys } from "./support-players";

/** The live-ops calendar: an admin schedules a sale on a purchase, sees it on the calendar, and cancels it. */
test.use({ viewport: { width: 1280, height: 900 } });

/** A datetime-local value (the browser's zone) `days` from now. */
const daysFromNow = (days: number, hour: number) => {
  const d = new Date(Date.now() + days * 86_400_000);
  d.setHours(hour, 0, 0, 0);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:00`;
};

test("an admin schedules a weekend sale, sees it on the calendar in UTC and local time, and cancels it", async ({ page }) => {
  const { projectId } = await projectWithKeys(page, "Calendar");
  await potionShop(page, projectId, 100);

  await page.goto(`/projects/${projectId}/live/calendar`);
  await expect(page.getByRole("heading", { name: "Calendar", level: 1 })).toBeVisible();
  const form = page.getByRole("form", { name: "Schedule a sale" });
  await form.getByLabel("Name").fill("Weekend sale");
  await form.getByLabel("Purchase").selectOption("buy-potion");
  await form.getByLabel(/^coins \(now 100\)/).fill("50");
  await form.getByLabel(/^Starts/).fill(daysFromNow(2, 18));
  await form.getByLabel(/^Ends/).fill(daysFromNow(4, 6));
  await form.getByRole("button", { name: "Schedule the sale" }).click();

  const event = page.getByRole("listitem", { name: "Weekend sale" });
  await expect(event).toContainText("scheduled");
  await expect(event).toContainText("price 50 coins");
  await expect(event).toContainText("UTC");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "calendar-sale-scheduled");

  await event.getByRole("button", { name: "Cancel" }).click();
  const confirm = page.getByRole("alertdialog");
  await expect(confirm).toContainText("it will never apply");
  await confirm.getByRole("button", { name: "Cancel the change" }).click();
  await expect(event).toContainText("cancelled");
  await expect(page.getByText("Nothing is scheduled.")).toBeVisible();
  await shoot(page, "calendar-sale-cancelled");
});
