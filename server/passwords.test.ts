import { describe, expect, it } from "vitest";
import { createHashGate, type HashGateLimits } from "./passwords";

/**
 * The hashing gate's queue, with work the test finishes by hand and a clock the test moves:
 * nothing here depends on how fast the machine hashes.
 */
const stranger = async () => false;
const known = async () => true;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function harness(limits: HashGateLimits) {
  let clock = 0;
  const gate = createHashGate(
    () => limits,
    () => clock,
  );
  const running: Array<() => void> = [];
  /** The gate rejects with a marker (hashPassword makes it the 503 AppError of the answering route's bundle). */
  const settled: Array<{ source: string; ok: boolean; error?: { gateBusy?: boolean; retryAfterSeconds?: number } }> = [];
  const send = (source: string, isKnown = stranger) => {
    const done = gate
      .run({ isKnown, source }, () => new Promise<void>((resolve) => running.push(resolve)))
      .then(
        () => settled.push({ source, ok: true }),
        (error: { gateBusy?: boolean; retryAfterSeconds?: number }) => settled.push({ source, ok: false, error }),
      );
    return done;
  };
  /** Finishes the oldest running hash after `ms` of the clock, and lets the next one start. */
  const finishOne = async (ms = 50) => {
    clock += ms;
    running.shift()?.();
    await turn();
  };
  const finishAll = async () => {
    while (running.length) await finishOne();
  };
  return { gate, send, finishOne, finishAll, settled, running };
}

describe("the password hashing gate", () => {
  it("lets a burst of 50 sign-ups wait when the measured speed starts them all within the wait limit", async () => {
    const h = harness({ concurrency: 1, queue: 500, maxWaitMs: 5_000 });
    for (let i = 0; i < 50; i++) h.send(`10.0.0.${i}`);
    await turn();
    expect(h.gate.state()).toMatchObject({ running: 1, waiting: 49 });
    await h.finishAll();
    await turn();
    expect(h.settled.filter((s) => s.ok)).toHaveLength(50);
  });

  it("refuses what could not start within the wait limit, before hashing, with the seconds to retry after", async () => {
    // 60 ms a hash (the first estimate), one slot, one second: 16 may wait behind the one running.
    const h = harness({ concurrency: 1, queue: 500, maxWaitMs: 1_000 });
    for (let i = 0; i < 18; i++) h.send(`10.0.1.${i}`);
    await turn();
    expect(h.gate.state()).toMatchObject({ running: 1, waiting: 16 });
    const refused = h.settled.filter((s) => !s.ok);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.error).toEqual({ gateBusy: true, retryAfterSeconds: 1 });
    await h.finishAll();
  });

  it("admits fewer when hashing is measured slower", async () => {
    const h = harness({ concurrency: 1, queue: 500, maxWaitMs: 1_000 });
    // Ten hashes of 700 ms each move the estimate to ~630 ms: a second waiter would start after ~1.26 s.
    for (let i = 0; i < 10; i++) {
      h.send("10.0.2.1");
      await turn();
      await h.finishOne(700);
    }
    for (let i = 0; i < 4; i++) h.send(`10.0.2.${i + 2}`);
    await turn();
    expect(h.gate.state().waiting).toBe(1);
    await h.finishAll();
  });

  it("lets a second address into a queue one address filled, by displacing that address's newest waiter", async () => {
    const h = harness({ concurrency: 1, queue: 4, maxWaitMs: 60_000 });
    for (let i = 0; i < 5; i++) h.send("flood");
    await turn();
    expect(h.gate.state()).toMatchObject({ running: 1, waiting: 4 });
    h.send("player-1");
    h.send("player-1");
    await turn();
    // flood 4 → 3 → 2 waiting; player-1 has 2. A third from player-1 would leave it ahead: refused.
    h.send("player-1");
    await turn();
    expect(h.settled.map((s) => `${s.source}:${s.ok ? "ok" : s.error?.gateBusy ? "busy" : "other"}`)).toEqual([
      "flood:busy",
      "flood:busy",
      "player-1:busy",
    ]);
    await h.finishAll();
    await turn();
    expect(h.settled.filter((s) => s.ok && s.source === "player-1")).toHaveLength(2);
  });

  it("starts known clients before strangers that waited longer", async () => {
    const h = harness({ concurrency: 1, queue: 10, maxWaitMs: 60_000 });
    h.send("busy");
    await turn();
    h.send("stranger");
    await turn();
    h.send("regular", known);
    await turn();
    await h.finishAll();
    await turn();
    expect(h.settled.map((s) => s.source)).toEqual(["busy", "regular", "stranger"]);
  });
});
