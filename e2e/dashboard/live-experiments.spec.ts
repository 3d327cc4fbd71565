import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { saveWithReason, sql } from "./live-support";
import { createProject, seriousAxeFindings, shoot, signIn } from "./support";
import { trpcMutation } from "./support-players";

/**
 * Experiments end to end: an operator creates an experiment with two price variants (their weights
 * shown as shares), starts it with a reason; exposures and purchases are then seeded in the
 * database (10 players see $0.99, 3 buy; 8 see $0.49, 5 buy) and the results page shows each
 * variant's conversion with its 95 % Wilson interval and the difference with Newcombe's interval
 * (the values in e2e/api/experiment-results.test.ts). Screenshots: live-experiments*.png.
 */
test.use({ viewport: { width: 1280, height: 900 } });

async function seedExposuresAndSales(projectId: string): Promise<void> {
  const assignedAt = new Date(Date.now() - 86_400_000);
  const later = new Date(assignedAt.getTime() + 3_600_000);
  const variants: Array<[string, number, number]> = [
    ["control", 10, 3],
    ["cheap", 8, 5],
  ];
  for (const [variant, players, buyers] of variants)
    for (let i = 0; i < players; i++) {
      const playerId = randomUUID();
      await sql("INSERT INTO players (id, project_id, updated_at) VALUES ($1, $2, now())", [playerId, projectId]);
      await sql(
        "INSERT INTO experiment_assignments (project_id, experiment_id, player_id, variant, assigned_at) VALUES ($1, 'potion-price', $2, $3, $4)",
        [projectId, playerId, variant, assignedAt],
      );
      if (i < buyers)
        await sql(
          `INSERT INTO store_transactions (id, project_id, store, store_transaction_id, player_id, status, environment, price_micros, currency, created_at)
           VALUES ($1, $2, 'apple', $3, $4, 'granted', 'production', $5, 'USD', $6)`,
          [randomUUID(), projectId, randomUUID(), playerId, variant === "control" ? 990_000 : 490_000, later],
        );
    }
}

test("an experiment with two price variants is created and started with a reason, and its results show each variant's conversion with its interval", async ({
  page,
}) => {
  await signIn(page);
  const projectId = await createProject(page, `Live experiments ${Date.now()}`);
  await trpcMutation(page, "remoteConfig.upsertKey", {
    projectId,
    key: "potion.price",
    type: "number",
    defaultValue: 0.99,
    reason: "spec setup",
  });

  await page.goto(`/projects/${projectId}/live/experiments`);
  await page.getByRole("button", { name: "New experiment" }).click();
  await page.getByLabel("Experiment id").fill("potion-price");
  await page.getByLabel("Name", { exact: true }).fill("Potion price");
  await page.getByLabel("Variant 1 name").fill("$0.99");
  await page.getByLabel("Variant 1 values (JSON)").fill('{"potion.price": 0.99}');
  await page.getByLabel("Variant 2 id").fill("cheap");
  await page.getByLabel("Variant 2 name").fill("$0.49");
  await page.getByLabel("Variant 2 values (JSON)").fill('{"potion.price": 0.49}');
  await page.getByLabel("Variant 2 weight").fill("150");
  await expect(page.getByTestId("variant-share")).toHaveText(["25 %", "75 %"]);
  await page.getByLabel("Variant 2 weight").fill("50");
  await expect(page.getByTestId("variant-share")).toHaveText(["50 %", "50 %"]);
  await page.getByRole("button", { name: "Review experiment" }).click();
  await saveWithReason(page, {
    title: "Create Potion price",
    before: "(nothing)",
    after: ['"potion.price": 0.49'],
    reason: "is $0.49 worth it?",
  });
  const row = page.getByTestId("experiment-row");
  await expect(row).toContainText("draft");
  await row.getByRole("button", { name: "Start Potion price" }).click();
  await saveWithReason(page, { title: "Start Potion price", before: "draft", after: ["running"], reason: "launch the test" });
  await expect(row).toContainText("running");
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "live-experiments");

  await seedExposuresAndSales(projectId);
  await row.getByRole("link", { name: "Results of Potion price" }).click();
  const results = page.getByTestId("result-row");
  await expect(results).toHaveCount(2);
  await expect(results.nth(0)).toContainText("10");
  await expect(results.nth(0)).toContainText("30.0 %");
  await expect(results.nth(0)).toContainText("10.8 % – 60.3 %");
  await expect(results.nth(0)).toContainText("baseline");
  await expect(results.nth(1)).toContainText("62.5 %");
  await expect(results.nth(1)).toContainText("30.6 % – 86.3 %");
  await expect(results.nth(1)).toContainText("+32.5 % (−11.5 % to +63.1 %)");
  // The 18 seeded exposures, one line each, downloaded as the browser does.
  const [download] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Export assignments as CSV" }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^experiment-assignments-.+\.csv$/);
  const csv = readFileSync((await download.path()) ?? "", "utf8")
    .trimEnd()
    .split("\r\n");
  expect(csv[0]).toBe("experimentId,experimentName,variant,playerId,assignedAt");
  expect(csv).toHaveLength(19);
  expect(await seriousAxeFindings(page)).toEqual([]);
  await shoot(page, "live-experiment-results");
});
