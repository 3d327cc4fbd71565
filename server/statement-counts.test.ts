import { afterEach, describe, expect, it, vi } from "vitest";

/** The flag is read when the module loads: each case loads it afresh under its own environment. */
async function load(flag: string | undefined) {
  vi.resetModules();
  if (flag === undefined) delete process.env.STATEMENT_COUNTS;
  else process.env.STATEMENT_COUNTS = flag;
  return import("./statement-counts");
}

afterEach(() => {
  delete process.env.STATEMENT_COUNTS;
  // The store lives on globalThis (shared by the build's chunks): a fresh one for the next case.
  delete (globalThis as { __gameBackendCounts?: unknown }).__gameBackendCounts;
});

describe("statement counts (X-Debug-Db)", () => {
  it("off by default: no header, nothing counted, the response untouched", async () => {
    const counts = await load(undefined);
    expect(counts.countingOn).toBe(false);
    const response = new Response("{}");
    const answered = await counts.withStatementCounts(async () => {
      counts.noteQuery("SELECT 1");
      return response;
    });
    expect(answered).toBe(response);
    expect(answered.headers.get("x-debug-db")).toBeNull();
  });

  it("on only for exactly 1", async () => {
    expect((await load("true")).countingOn).toBe(false);
    expect((await load("0")).countingOn).toBe(false);
  });

  it("on: statements leave out transaction control; round trips count every query; transactions count BEGINs", async () => {
    const counts = await load("1");
    const answered = await counts.withStatementCounts(async () => {
      for (const sql of [
        "BEGIN",
        "SET LOCAL lock_timeout = '1s'",
        "SELECT 1",
        "SAVEPOINT nested_1",
        "UPDATE t SET a = 1",
        "RELEASE SAVEPOINT nested_1",
        "COMMIT",
      ])
        counts.noteQuery(sql);
      await Promise.resolve();
      counts.noteQuery("  select 2");
      return new Response("{}");
    });
    const header = answered.headers.get("x-debug-db");
    expect(header).toBe("statements=3; round-trips=8; transactions=1; redis=0");
    expect(counts.parseCounts(header)).toEqual({ statements: 3, roundTrips: 8, transactions: 1, redis: 0 });
  });

  it("on: queries outside a request, and after its answer, count nowhere", async () => {
    const counts = await load("1");
    counts.noteQuery("SELECT outside");
    let later: () => void = () => undefined;
    const answered = await counts.withStatementCounts(async () => {
      counts.noteQuery("SELECT 1");
      later = () => counts.noteQuery("SELECT after the answer");
      return new Response("{}");
    });
    later();
    expect(answered.headers.get("x-debug-db")).toBe("statements=1; round-trips=1; transactions=0; redis=0");
  });
});

describe("uncounted", () => {
  it("work handed to it, and the timers it sets, count in no request", async () => {
    const counts = await load("1");
    let timerRan: Promise<void> = Promise.resolve();
    const answered = await counts.withStatementCounts(async () => {
      counts.noteQuery("SELECT 1");
      counts.uncounted(() => {
        counts.noteQuery("SELECT in the background");
        timerRan = new Promise((resolve) =>
          setTimeout(() => {
            counts.noteQuery("SELECT from a timer");
            resolve();
          }, 0),
        );
      });
      await timerRan;
      return new Response("{}");
    });
    expect(answered.headers.get("x-debug-db")).toBe("statements=1; round-trips=1; transactions=0; redis=0");
  });
});
