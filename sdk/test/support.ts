import { createServer, type Socket } from "node:net";
import { createClient, type GameClient } from "@game-backend/client";
import { inject } from "vitest";
import { makeProject, type TestProject } from "@/e2e/support/fixtures";
import { createCurrency, createItem, createPurchase } from "@/server/services/economy/definitions";
import { createLeaderboard } from "@/server/services/leaderboards/definitions";

export const baseUrl = (): string => inject("baseUrl");

export type Exchange = {
  method: string;
  path: string;
  status: number | "network";
  startedAt: number;
  endedAt: number;
  idempotencyKey: string | null;
  retryAfter: string | null;
  ifNoneMatch: string | null;
  etag: string | null;
  /** An error answer's `error.details.reason`, if any. */
  reason: string | null;
};

/** A fetch that records every exchange the SDK makes (the requests still go to the real server). */
export function recordingFetch(): { fetch: typeof fetch; log: Exchange[] } {
  const log: Exchange[] = [];
  const recorded: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    const entry: Exchange = {
      method: init?.method ?? "GET",
      path: url.pathname,
      status: "network",
      startedAt: Date.now(),
      endedAt: 0,
      idempotencyKey: headers.get("idempotency-key"),
      retryAfter: null,
      ifNoneMatch: headers.get("if-none-match"),
      etag: null,
      reason: null,
    };
    try {
      const response = await fetch(input, init);
      entry.status = response.status;
      entry.retryAfter = response.headers.get("retry-after");
      entry.etag = response.headers.get("etag");
      if (!response.ok)
        entry.reason =
          ((
            await response
              .clone()
              .json()
              .catch(() => null)
          )?.error?.details?.reason as string) ?? null;
      return response;
    } finally {
      entry.endedAt = Date.now();
      log.push(entry);
    }
  };
  return { fetch: recorded, log };
}

/** A project with a board, a currency, an item and a purchase, as an operator would set it up. */
export async function gameProject(o: { customRateLimit?: number } = {}): Promise<TestProject> {
  const project = await makeProject({ plan: "ENTERPRISE", customRateLimit: o.customRateLimit ?? 100_000 });
  await createLeaderboard({ projectId: project.projectId, input: { id: "high", name: "High", sortOrder: "desc", operator: "best" } });
  await createCurrency({ projectId: project.projectId, input: { id: "coins", name: "Coins", initialBalance: 100, clientWritable: true } });
  await createItem({ projectId: project.projectId, input: { id: "potion", name: "Potion" } });
  await createPurchase({
    projectId: project.projectId,
    input: {
      id: "buy-potion",
      name: "Buy a potion",
      costs: [{ currencyId: "coins", amount: 10 }],
      rewards: [{ itemId: "potion", quantity: 1 }],
    },
  });
  return project;
}

export function client(apiKey: string, extra: Partial<Parameters<typeof createClient>[0]> = {}): GameClient {
  return createClient({ baseUrl: baseUrl(), apiKey, ...extra });
}

/** The real server's answers, with those to paths ending in `suffix` held back `ms` (a slow network). */
export function slowFetch(suffix: string, ms: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (new URL(String(input)).pathname.endsWith(suffix)) await new Promise((resolve) => setTimeout(resolve, ms));
    return response;
  };
}

/** A storage in React Native AsyncStorage's shape: every method returns a promise. */
export function asyncStorage() {
  const items = new Map<string, string>();
  return {
    getItem: async (k: string) => items.get(k) ?? null,
    setItem: async (k: string, v: string) => void items.set(k, v),
    removeItem: async (k: string) => void items.delete(k),
  };
}

/** A backend that accepts connections and never answers (a hung server), and how many connections it got. */
export async function silentServer(): Promise<{ url: string; connections: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
