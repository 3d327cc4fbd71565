import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, type Page } from "@playwright/test";
import pg from "pg";
import { E2E_DATA_DIR } from "../../playwright.config";

/** The suite's embedded Postgres (e2e/dashboard/server.mjs): its port from the pid file, its password from secrets.json. */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
  const port = readFileSync(path.join(E2E_DATA_DIR, "postgres", "postmaster.pid"), "utf8")
    .split("\n")[3]
    ?.trim();
  const { postgresPassword } = JSON.parse(readFileSync(path.join(E2E_DATA_DIR, "secrets.json"), "utf8")) as { postgresPassword: string };
  const client = new pg.Client({ host: "127.0.0.1", port: Number(port), user: "postgres", password: postgresPassword, database: "game" });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The review dialog every live-ops change opens: checks what it shows, gives the reason and saves. */
export async function saveWithReason(
  page: Page,
  o: { title: string | RegExp; before?: string; after: string[]; reason: string },
): Promise<void> {
  const dialog = page.getByRole("dialog", { name: o.title });
  await expect(dialog).toBeVisible();
  if (o.before !== undefined) await expect(dialog.getByTestId("change-before")).toContainText(o.before);
  for (const a of o.after) await expect(dialog.getByTestId("change-after")).toContainText(a);
  await dialog.getByLabel("Reason").fill(o.reason);
  await dialog.getByRole("button", { name: "Save change" }).click();
  await expect(dialog).toBeHidden();
}
