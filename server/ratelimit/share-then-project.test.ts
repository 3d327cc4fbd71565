import { randomUUID } from "node:crypto";
import { Ratelimit } from "@upstash/ratelimit";
import { Redis as IoRedis } from "ioredis";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { IoRedisStore, MemoryStore, type ScriptStore, shareThenProject } from "./stores";

type Redis = ConstructorParameters<typeof Ratelimit>[0]["redis"];
const redisUrl = process.env.REDIS_URL;
const clients: IoRedis[] = [];

afterEach(() => {
  vi.useRealTimers();
});
afterAll(() => {
  for (const client of clients) client.disconnect();
});

const stores: [string, () => ScriptStore][] = [
  ["in-process store", () => new MemoryStore()],
  ...(redisUrl
    ? ([
        [
          "Redis",
          () => {
            const client = new IoRedis(redisUrl);
            clients.push(client);
            return new IoRedisStore(client);
          },
        ],
      ] as [string, () => ScriptStore][])
    : []),
];

describe.each(stores)("one call for a share and its project (%s)", (_, makeStore) => {
  it("counts the share, and the project only while the share lets the request through", async () => {
    const store = makeStore();
    const [share, project] = [`unit-pair-${randomUUID()}`, `unit-pair-${randomUUID()}`];
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await shareThenProject(store, [share, project], 2, 60_000));
    expect(answers).toEqual([
      [1, 1],
      [2, 2],
      [3, 0],
      [4, 0],
    ]);
  });

  it("counts in the library's window keys: the library reads what it counted, and it counts on from the library's count", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_800_000_000_000 + 20); // just after a boundary: both reads fall in one window
    const store = makeStore();
    const prefix = `unit-pair-${randomUUID()}`;
    const library = (limit: number) =>
      new Ratelimit({ redis: store as unknown as Redis, limiter: Ratelimit.fixedWindow(limit, "60 s"), prefix, ephemeralCache: false });
    const bucket = Math.floor(Date.now() / 60_000);
    expect((await library(10).limit("project")).remaining).toBe(9);
    const [, projectCount] = await shareThenProject(store, [`${prefix}:share:${bucket}`, `${prefix}:project:${bucket}`], 5, 60_000);
    expect(projectCount).toBe(2);
    expect((await library(10).getRemaining("project")).remaining).toBe(8);
  });
});
