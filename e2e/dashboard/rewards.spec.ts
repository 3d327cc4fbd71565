import { expect, test } from "@playwright/test";
import { seriousAxeFindings, shoot } from "./support";
import { projectWithKeys, trpcMutation } from "./support-players";

/**
 * A leaderboard's period-close rewards, written in the create form's JSON field: text that is not
 * JSON and tiers out of order are refused in the browser with a sentence, a currency the project
 * does not have is refused by the server under the same field, and a good table is saved, counted
 * on the board's page and served to the game by GET /leaderboards/{id}. Screenshot:
 * test-results/screenshots/leaderboard-rewards-*.png.
 */
test.use({ viewport: { width: 1280, height: 900 } });

const GOOD = [
  { rank: 1, currencies: [{ id: "gems", amount: 100 }] },
  { fromRank: 2, toRank: 3, currencies: [{ id: "gems", amount: 50 }] },
  { topPercent: 10, currencies: [{ id: "gems", amount: 5 }] },
];

test("rewards in the leaderboard form: bad JSON, tiers out of order and an unknown currency are refused with a sentence; a good table is saved and served to the game", async ({
  page,
}) => {
  const { projectId, clientKey } = await projectWithKeys(page, "Rewards");
  await trpcMutation(page, "economy.createCurrency", { projectId, currency: { id: "gems", name: "Gems", initialBalance: 0 } });
  await page.goto(`/projects/${projectId}/leaderboards`);
  await expect(page.getByText("No leaderboards yet.")).toBeVisible();
  await page.getByLabel("Leaderboard id").fill("season");
  await page.getByLabel("Name").fill("Season");
  const rewards = page.getByLabel("Rewards when a period closes (JSON, optional)");
  const create = page.getByRole("button", { name: "Create leaderboard" });

  await rewards.fill('[{"rank": 1, "currencies": [{"id": "gems"');
  await create.click();
  await expect(page.getByText("The rewards are not valid JSON.")).toBeVisible();
  await expect(rewards).toHaveAttribute("aria-invalid", "true");

  await rewards.fill(JSON.stringify([GOOD[1], GOOD[0]]));
  await create.click();
  await expect(page.getByText("Tier 2: Ranks overlap or are out of order: this tier starts at 1, after 3.")).toBeVisible();
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "leaderboard-rewards-refused");

  await rewards.fill(JSON.stringify([{ rank: 1, currencies: [{ id: "rubies", amount: 1 }] }]));
  await create.click();
  await expect(page.getByText('No currency "rubies" in this project.')).toBeVisible();
  await expect(page.getByText("No leaderboards yet.")).toBeVisible();

  await rewards.fill(JSON.stringify(GOOD, null, 2));
  await create.click();
  await expect(page.getByTestId("leaderboard-row")).toHaveCount(1);
  await page.getByTestId("leaderboard-row").getByRole("link", { name: "Season" }).click();
  await expect(page.getByTestId("leaderboard-rewards")).toContainText("3 tiers");

  const res = await page.request.get("/api/v1/leaderboards/season", { headers: { "X-API-Key": clientKey } });
  expect(res.status()).toBe(200);
  expect(((await res.json()) as { rewards: unknown }).rewards).toEqual(GOOD.map((t) => ({ ...t, items: [] })));
});
