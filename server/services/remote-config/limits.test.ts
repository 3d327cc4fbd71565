import { describe, expect, it } from "vitest";
import { CONFIG_CAPS, capBreach, configFootprint } from "./limits";

/** The caps' arithmetic: the worst-case answer bounds any real answer, and over a cap only what does not grow it passes. */

const FREE = CONFIG_CAPS.FREE;
const shape = (keys: Array<[string, unknown[]]>, experiments: Array<[string, string[]]> = []) => ({
  keys: keys.map(([key, values]) => ({ key, values })),
  experiments: experiments.map(([id, variantIds]) => ({ id, variantIds })),
});

describe("configFootprint", () => {
  it("bounds the real answer: each key at its largest value, each experiment at its longest variant, the largest version", () => {
    const s = shape(
      [
        ["a", [1, "a much longer value"]],
        ["b", [{ x: [1, 2, 3] }]],
      ],
      [["exp", ["control", "treatment"]]],
    );
    const f = configFootprint(s, FREE);
    const worst = JSON.stringify({
      values: { a: "a much longer value", b: { x: [1, 2, 3] } },
      assignments: { exp: "treatment" },
      version: 2 ** 31 - 1,
    });
    // The bound counts a trailing comma per entry: a few bytes over the exact worst case, never under.
    expect(f.answerBytes).toBeGreaterThanOrEqual(Buffer.byteLength(worst));
    expect(f.answerBytes - Buffer.byteLength(worst)).toBeLessThanOrEqual(3);
    expect(f).toMatchObject({ keys: 2, valueBytes: Buffer.byteLength('"a much longer value"'), excessBytes: 0 });
  });

  it("counts UTF-8 bytes, and the excess of every value over the cap", () => {
    const big = "é".repeat(FREE.valueBytes); // two bytes each
    const f = configFootprint(shape([["k", [big, big]]]), FREE);
    expect(f.valueBytes).toBe(2 * FREE.valueBytes + 2);
    expect(f.excessBytes).toBe(2 * (FREE.valueBytes + 2));
  });
});

describe("capBreach", () => {
  const keys = (n: number) => shape(Array.from({ length: n }, (_, i) => [`k${i}`, [i]] as [string, unknown[]]));
  const fp = (s: ReturnType<typeof shape>) => configFootprint(s, FREE);

  it("refuses a change past a cap, naming the limit, the plan and the numbers", () => {
    const b = capBreach("FREE", fp(keys(FREE.keys)), fp(keys(FREE.keys + 1)));
    expect(b).toMatchObject({ limit: "keys", max: 200, current: 201 });
    expect(b?.message).toMatch(/Free plan allows at most 200 config keys/);
    expect(capBreach("PRO", fp(keys(FREE.keys)), fp(keys(FREE.keys + 1)))).toBeNull();
  });

  it("a project already over a cap may shrink or stay, not grow", () => {
    expect(capBreach("FREE", fp(keys(300)), fp(keys(299)))).toBeNull();
    expect(capBreach("FREE", fp(keys(300)), fp(keys(300)))).toBeNull();
    expect(capBreach("FREE", fp(keys(300)), fp(keys(301)))?.limit).toBe("keys");
  });

  it("per value: a new over-cap value is refused even beside a larger old one; shrinking one passes", () => {
    const v = (n: number) => "x".repeat(n);
    const old = shape([["a", [v(10_000)]]]);
    expect(
      capBreach(
        "FREE",
        fp(old),
        fp(
          shape([
            ["a", [v(10_000)]],
            ["b", [v(9_000)]],
          ]),
        ),
      ),
    ).toMatchObject({
      limit: "valueBytes",
      max: FREE.valueBytes,
    });
    expect(capBreach("FREE", fp(old), fp(shape([["a", [v(9_000)]]])))).toBeNull();
    expect(
      capBreach(
        "FREE",
        fp(old),
        fp(
          shape([
            ["a", [v(10_000)]],
            ["b", [1]],
          ]),
        ),
      ),
    ).toBeNull();
  });

  it("the answer cap: many values each under the value cap", () => {
    const s = (n: number) => shape(Array.from({ length: n }, (_, i) => [`k${i}`, ["x".repeat(7_000)]] as [string, unknown[]]));
    expect(capBreach("FREE", fp(s(9)), fp(s(10)))).toMatchObject({ limit: "answerBytes", max: 64 * 1024 });
    expect(capBreach("PRO", configFootprint(s(9), CONFIG_CAPS.PRO), configFootprint(s(10), CONFIG_CAPS.PRO))).toBeNull();
  });
});
