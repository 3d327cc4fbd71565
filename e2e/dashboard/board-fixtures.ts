import { type APIRequestContext, type Browser, expect, type Page } from "@playwright/test";
import { acceptInvite, invite, signIn } from "./support";

/** A tRPC mutation as the signed-in operator (the page's cookies; same origin, so no Origin check fails). */
export async function mutate<T>(page: Page, path: string, input: unknown): Promise<T> {
  const res = await page.request.post(`/api/trpc/${path}`, { data: input });
  expect(res.status(), await res.text()).toBe(200);
  return ((await res.json()) as { result: { data: T } }).result.data;
}

export type BoardPlayer = { playerId: string; name: string; headers: Record<string, string> };

/** A named anonymous player of the key's project, with a score (and metadata) on `board`. */
export async function playerWithScore(
  request: APIRequestContext,
  clientKey: string,
  board: string,
  name: string,
  score: number,
  metadata?: Record<string, unknown>,
): Promise<BoardPlayer> {
  const session = await request.post("/api/v1/auth/anonymous", { headers: { "X-API-Key": clientKey } });
  expect(session.status()).toBe(200);
  const { playerId, accessToken } = (await session.json()) as { playerId: string; accessToken: string };
  const headers = { "X-API-Key": clientKey, Authorization: `Bearer ${accessToken}` };
  expect((await request.patch("/api/v1/players/me", { headers, data: { displayName: name } })).status()).toBe(200);
  const submitted = await request.post(`/api/v1/leaderboards/${board}/scores`, {
    headers,
    data: { score, ...(metadata ? { metadata } : {}) },
  });
  expect(submitted.status()).toBe(200);
  return { playerId, name, headers };
}

/**
 * Signed in, a new project with a client key and the board "arena" (higher first, best, 0 …
 * 10,000, weekly), where Ada (300, with metadata), Bo (200) and Cy (100) have scores.
 */
export async function arena(page: Page, label: string) {
  await signIn(page);
  // Created through tRPC (what the form calls): the projects page is not what these specs are about.
  const { id: projectId } = await mutate<{ id: string }>(page, "projects.create", { name: `${label} ${Date.now()}` });
  const { key } = await mutate<{ key: string }>(page, "projects.createKey", { projectId, kind: "CLIENT", name: "spec client" });
  await mutate(page, "leaderboards.create", {
    projectId,
    board: { id: "arena", name: "Arena", sortOrder: "desc", operator: "best", minScore: 0, maxScore: 10_000, resetSchedule: "weekly" },
  });
  const ada = await playerWithScore(page.request, key, "arena", "Ada", 300, { character: "mage", level: 12, replay: "r-77" });
  const bo = await playerWithScore(page.request, key, "arena", "Bo", 200);
  const cy = await playerWithScore(page.request, key, "arena", "Cy", 100);
  return { projectId, key, ada, bo, cy, url: `/projects/${projectId}/leaderboards/arena` };
}

/** A second operator (a viewer of a project of its own), so pages listing operators or members have rows with actions. */
export async function anotherOperator(page: Page, browser: Browser, label: string): Promise<{ email: string; projectId: string }> {
  const { id: projectId } = await mutate<{ id: string }>(page, "projects.create", { name: `${label} ${Date.now()}` });
  const email = `${label.toLowerCase().replace(/\W+/g, "-")}-${Date.now()}@studio.test`;
  await acceptInvite(browser, await invite(page, projectId, email), label);
  return { email, projectId };
}
