import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { makeProject } from "@/e2e/support/fixtures";
import { createCurrency, createItem, createPurchase } from "@/server/services/economy/definitions";
import { createLeaderboard } from "@/server/services/leaderboards/definitions";
import { measureSize } from "../scripts/size.mjs";
import { baseUrl } from "./support";

/** The SDK as it is published: its size, and a packed tarball in an empty project, typechecked and run. */
const root = path.resolve(import.meta.dirname, "../..");

describe("the published package", () => {
  it("minified and gzipped, the bundled SDK stays within its size budget", async () => {
    const size = await measureSize();
    expect(size.gzippedBytes).toBeGreaterThan(1_000);
    expect(size.gzippedBytes).toBeLessThanOrEqual(size.budgetBytes);
  });

  it("a packed tarball installs into an empty project, typechecks under bundler and nodenext, and plays against the server", async () => {
    const project = await makeProject();
    await createLeaderboard({
      projectId: project.projectId,
      input: { id: "high-scores", name: "High", sortOrder: "desc", operator: "best" },
    });
    await createCurrency({ projectId: project.projectId, input: { id: "coins", name: "Coins", initialBalance: 100 } });
    await createItem({ projectId: project.projectId, input: { id: "potion", name: "Potion" } });
    await createPurchase({
      projectId: project.projectId,
      input: { id: "buy-potion", name: "Buy", costs: [{ currencyId: "coins", amount: 10 }], rewards: [{ itemId: "potion", quantity: 1 }] },
    });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["sdk/scripts/consumer-check.mjs", "--base-url", baseUrl(), "--api-key", project.clientKey],
      { cwd: root },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    expect(result).toMatchObject({
      ok: true,
      typechecked: ["bundler", "nodenext"],
      settingsVersion: 1,
      saveVersion: 1,
      rank: 1,
      total: 1,
      balances: [{ id: "coins", balance: 90 }],
      missing: "SAVE_NOT_FOUND",
    });
  }, 120_000);
});
