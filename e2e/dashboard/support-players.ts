import { type APIRequestContext, expect, type Page } from "@playwright/test";
import { createKey, createProject, seriousAxeFindings, signIn } from "./support";

/** What the player-support, export, audit and calendar specs share: a project with keys, players made through the game API, a potion shop, tRPC calls. */
export type Setup = { projectId: string; clientKey: string; serverKey: string };

export async function projectWithKeys(page: Page, name: string): Promise<Setup> {
  await signIn(page);
  const projectId = await createProject(page, `${name} ${Date.now()}`);
  await page.getByRole("link", { name: "API keys" }).click();
  const clientKey = await createKey(page, "CLIENT", "game build");
  const serverKey = await createKey(page, "SERVER", "game server");
  return { projectId, clientKey, serverKey };
}

export type MadePlayer = { playerId: string; accessToken: string };

export async function registeredPlayer(
  request: APIRequestContext,
  clientKey: string,
  o: { email: string; displayName?: string },
): Promise<MadePlayer> {
  const res = await request.post("/api/v1/auth/email/register", {
    headers: { "X-API-Key": clientKey },
    data: { email: o.email, password: "a long and unusual passphrase", ...(o.displayName ? { displayName: o.displayName } : {}) },
  });
  expect(res.status()).toBe(200);
  return (await res.json()) as MadePlayer;
}

export async function anonymousPlayer(request: APIRequestContext, clientKey: string): Promise<MadePlayer> {
  const res = await request.post("/api/v1/auth/anonymous", { headers: { "X-API-Key": clientKey } });
  expect(res.status()).toBe(200);
  return (await res.json()) as MadePlayer;
}

/** A tRPC mutation with the page's session cookie (setting up what a spec is not about). */
export async function trpcMutation(page: Page, procedure: string, input: unknown): Promise<unknown> {
  const res = await page.request.post(`/api/trpc/${procedure}`, { data: input });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { result: { data: unknown } }).result.data;
}

/** A project's shop with one thing in it: coins (players cannot write them), a potion, and "buy-potion" selling one for `price` coins. */
export async function potionShop(page: Page, projectId: string, price: number): Promise<void> {
  await trpcMutation(page, "economy.createCurrency", { projectId, currency: { id: "coins", name: "Coins", clientWritable: false } });
  await trpcMutation(page, "economy.createItem", { projectId, item: { id: "potion", name: "Potion" } });
  await trpcMutation(page, "economy.createPurchase", {
    projectId,
    purchase: {
      id: "buy-potion",
      name: "Potion",
      costs: [{ currencyId: "coins", amount: price }],
      rewards: [{ itemId: "potion", quantity: 1 }],
    },
  });
}

export async function expectAxeClean(page: Page): Promise<void> {
  expect(await seriousAxeFindings(page)).toEqual([]);
}

/** Clicks a download link and returns the file's text and suggested name. */
export async function download(page: Page, link: ReturnType<Page["getByRole"]>): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([page.waitForEvent("download"), link.click()]);
  const stream = await file.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return { name: file.suggestedFilename(), text: Buffer.concat(chunks).toString("utf8") };
}
