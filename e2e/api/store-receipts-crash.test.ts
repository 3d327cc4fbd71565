import path from "node:path";
import { afterAll, expect, inject, it } from "vitest";
import { uuidv7 } from "@/server/crypto";
import { pool } from "@/server/db";
import { createCurrency, createItem } from "@/server/services/economy/definitions";
import { anonymousPlayer, makeProject } from "../support/fixtures";
import { type StartedApp, startApp } from "../support/global-setup";
import { until } from "../support/launch.mjs";
import { newOperator } from "../support/operators";
import { appleReceipt, sellOnAppleAs } from "../support/stores";

/**
 * An app killed (kill -9) after the store said yes and before the grant committed: nothing was
 * granted, and the receipt's retry grants once. The moment is made exact, not timed: this test
 * holds an uncommitted row with the receipt's store transaction id, so the app's claim (the
 * INSERT of the exactly-once index) waits on it; the app is killed while it waits.
 */
const env = () => ({
  DATABASE_URL: inject("databaseUrl"),
  JWT_SECRET: inject("jwtSecret"),
  DATA_DIR: inject("dataDir"),
  SEED_DEMO: "false",
  STORE_APPLE_ROOT_CERTIFICATES: path.join(inject("dataDir"), "apple-test-root.der"),
});
let app: StartedApp | undefined;
afterAll(async () => {
  await app?.stop();
});

it("an app killed between the store's answer and the grant grants nothing; the retry grants once and the ledger agrees", async () => {
  app = await startApp(env());
  const project = await makeProject();
  await createCurrency({ projectId: project.projectId, input: { id: "gems", name: "Gems" } });
  await createItem({ projectId: project.projectId, input: { id: "vip-pass", name: "VIP pass" } });
  await sellOnAppleAs(project.projectId, await newOperator("OWNER", project.projectId));
  const player = await anonymousPlayer(project.clientKey);
  const receipt = appleReceipt({ productId: "com.example.game.gems500" });
  const redeem = (to: StartedApp) =>
    fetch(`${to.baseUrl}/api/v1/economy/receipts`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-API-Key": project.clientKey, Authorization: `Bearer ${player.accessToken}` },
      body: JSON.stringify(receipt.body),
    });

  const blocker = await pool().connect();
  try {
    await blocker.query("BEGIN");
    await blocker.query(
      `INSERT INTO store_transactions (id, project_id, store, store_transaction_id, status) VALUES ($1, $2, 'apple', $3, 'pending')`,
      [uuidv7(), project.projectId, receipt.transactionId],
    );
    const first = redeem(app).catch((error: unknown) => error);
    await until(
      "the app's claim waiting on the held row",
      async () => {
        const { rowCount } = await pool().query(
          "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO store_transactions%'",
        );
        return rowCount ? true : undefined;
      },
      60_000,
    );
    app.child.kill("SIGKILL");
    await app.exited;
    await first;
  } finally {
    await blocker.query("ROLLBACK");
    blocker.release();
  }

  const granted = async () =>
    (
      await pool().query<{ rows: string; ledger: string }>(
        `SELECT (SELECT count(*) FROM store_transactions WHERE project_id = $1 AND store_transaction_id = $2 AND status = 'granted') AS rows,
                (SELECT count(*) FROM economy_transactions WHERE project_id = $1 AND player_id = $3 AND kind = 'STORE_PURCHASE') AS ledger`,
        [project.projectId, receipt.transactionId, player.playerId],
      )
    ).rows[0];
  expect(await granted()).toEqual({ rows: "0", ledger: "0" });

  app = await startApp(env());
  const retried = await redeem(app);
  expect(retried.status).toBe(200);
  expect(await retried.json()).toMatchObject({ replayed: false });
  expect(((await (await redeem(app)).json()) as { replayed: boolean }).replayed).toBe(true);
  expect(await granted()).toEqual({ rows: "1", ledger: "1" });
  const { rows } = await pool().query<{ same: boolean }>(
    `SELECT s.ledger_transaction_id = t.id AS same FROM store_transactions s JOIN economy_transactions t ON t.id = s.ledger_transaction_id
      WHERE s.project_id = $1 AND s.store_transaction_id = $2 AND s.status = 'granted'`,
    [project.projectId, receipt.transactionId],
  );
  expect(rows).toEqual([{ same: true }]);
});
