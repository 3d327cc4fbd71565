import { expect, type Page, test } from "@playwright/test";
import { seriousAxeFindings, shoot } from "./support";
import { projectWithKeys, trpcMutation } from "./support-players";

/**
 * A leaderboard's period-close rewards, written in the create form's tier editor: an incomplete
 * tier and tiers out of order are refused in the browser with a sentence next to the tier's
 * input ("Tier 2: …"), a currency deleted after the form loaded is refused by the server, and a
 * good table is saved, listed in words on the board's page and served to the game by
 * GET /leaderboards/{id}. Screenshots: test-results/screenshots/leaderboard-rewards-*.png.
 */
test.use({ viewport: { width: 1280, height: 900 } });

const GOOD = [
  { rank: 1, currencies: [{ id: "gems", amount: 100 }], items: [] },
  { fromRank: 2, toRank: 3, currencies: [{ id: "gems", amount: 50 }], items: [{ id: "shield", quantity: 1 }] },
  { topPercent: 10, currencies: [{ id: "gems", amount: 5 }], items: [] },
];

async function pick(page: Page, combobox: string, option: string | RegExp): Promise<void> {
  await page.getByRole("combobox", { name: combobox, exact: true }).click();
  await page.getByRole("option", { name: option }).click();
}

test("rewards in the leaderboard form: an incomplete tier, tiers out of order and a deleted currency are refused with a sentence; a good table is saved, listed in words and served to the game", async ({
  page,
}) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Rewards");
  await trpcMutation(page, "economy.createCurrency", { projectId, currency: { id: "gems", name: "Gems", initialBalance: 0 } });
  await trpcMutation(page, "economy.createCurrency", { projectId, currency: { id: "rubies", name: "Rubies", initialBalance: 0 } });
  await trpcMutation(page, "economy.createItem", { projectId, item: { id: "shield", name: "Shield" } });
  await page.goto(`/projects/${projectId}/leaderboards`);
  await expect(page.getByText("No leaderboards yet.")).toBeVisible();
  await page.getByLabel("Leaderboard id").fill("season");
  await page.getByLabel("Name", { exact: true }).fill("Season");
  const create = page.getByRole("button", { name: "Create leaderboard" });
  const addTier = page.getByRole("button", { name: "Add tier" });

  // Tier 1: rank 1 with nothing picked yet.
  await addTier.click();
  await page.getByLabel("Tier 1 rank", { exact: true }).fill("1");
  await create.click();
  await expect(page.getByText("Tier 1, line 1: pick a currency or an item.")).toBeVisible();
  await pick(page, "Tier 1 line 1", /^Currency: Gems/);
  await page.getByLabel("Tier 1 line 1 amount").fill("100");

  // Tier 2, a range 2–3, added above tier 1: out of order.
  await addTier.click();
  await pick(page, "Tier 2 pays", "Rank range");
  await page.getByLabel("Tier 2 first rank").fill("2");
  await page.getByLabel("Tier 2 last rank").fill("3");
  await pick(page, "Tier 2 line 1", /^Currency: Gems/);
  await page.getByLabel("Tier 2 line 1 amount").fill("50");
  await page.getByRole("button", { name: "Add a line to tier 2" }).click();
  await pick(page, "Tier 2 line 2", /^Item: Shield/);
  await page.getByLabel("Tier 2 line 2 amount").fill("1");
  await page.getByRole("button", { name: "Move tier 2 up" }).click();
  await create.click();
  await expect(page.getByText("Tier 2: Ranks overlap or are out of order: this tier starts at 1, after 3.")).toBeVisible();
  await expect(page.getByLabel("Tier 2 rank", { exact: true })).toHaveAttribute("aria-invalid", "true");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "leaderboard-rewards-refused");
  await page.getByRole("button", { name: "Move tier 2 up" }).click();

  // Tier 3: top 10 % paid in rubies, deleted on the server after the form loaded its list.
  await addTier.click();
  await pick(page, "Tier 3 pays", "Top percent");
  await page.getByLabel("Tier 3 top percent").fill("10");
  await pick(page, "Tier 3 line 1", /^Currency: Rubies/);
  await page.getByLabel("Tier 3 line 1 amount").fill("5");
  await trpcMutation(page, "economy.deleteCurrency", { projectId, id: "rubies" });
  await create.click();
  await expect(page.getByText('No currency "rubies" in this project.')).toBeVisible();
  await expect(page.getByText("No leaderboards yet.")).toBeVisible();

  await pick(page, "Tier 3 line 1", /^Currency: Gems/);
  await create.click();
  await expect(page.getByTestId("leaderboard-row")).toHaveCount(1);
  await page.getByTestId("leaderboard-row").getByRole("link", { name: "Season" }).click();
  await expect(page.getByTestId("leaderboard-reward-tier")).toHaveText(["#1: 100 Gems", "#2–#3: 50 Gems, 1 Shield", "Top 10 %: 5 Gems"]);
  await expect(page.getByTestId("leaderboard-starts")).toHaveCount(0); // no window: open at all times
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "leaderboard-rewards-listed");

  const res = await page.request.get("/api/v1/leaderboards/season", { headers: { "X-API-Key": clientKey } });
  expect(res.status()).toBe(200);
  expect(((await res.json()) as { rewards: unknown }).rewards).toEqual(GOOD);
});

test("a limited-time board: a window that ends before it starts is refused next to the field; a good window is saved, shown in UTC and the operator's time, and served to the game", async ({
  page,
}) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Window");
  await page.goto(`/projects/${projectId}/leaderboards`);
  await expect(page.getByText("No leaderboards yet.")).toBeVisible();
  await page.getByLabel("Leaderboard id").fill("weekend");
  await page.getByLabel("Name", { exact: true }).fill("Weekend Cup");
  const starts = page.getByLabel("Scores accepted from (your time, optional)");
  const ends = page.getByLabel("Scores accepted until (your time, optional)");
  await starts.fill("2030-05-04T10:00");
  await ends.fill("2030-05-03T10:00");
  await page.getByRole("button", { name: "Create leaderboard" }).click();
  await expect(page.getByText("The end (endsAt) must be after the start (startsAt).")).toBeVisible();
  await expect(ends).toHaveAttribute("aria-invalid", "true");

  await ends.fill("2030-05-06T10:00");
  await page.getByRole("button", { name: "Create leaderboard" }).click();
  await expect(page.getByTestId("leaderboard-row")).toHaveCount(1);
  await page.getByTestId("leaderboard-row").getByRole("link", { name: "Weekend Cup" }).click();
  const startsAt = await page.evaluate(() => new Date("2030-05-04T10:00").toISOString());
  const endsAt = await page.evaluate(() => new Date("2030-05-06T10:00").toISOString());
  await expect(page.getByTestId("leaderboard-starts")).toContainText(`${startsAt.slice(0, 16).replace("T", " ")} UTC`);
  await expect(page.getByTestId("leaderboard-ends")).toContainText(`${endsAt.slice(0, 16).replace("T", " ")} UTC`);
  await expect(page.getByText("not started", { exact: true })).toBeVisible();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "leaderboard-window");

  const res = await page.request.get("/api/v1/leaderboards/weekend", { headers: { "X-API-Key": clientKey } });
  expect(await res.json()).toMatchObject({ startsAt, endsAt });
});
