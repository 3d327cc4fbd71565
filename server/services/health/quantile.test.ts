import { describe, expect, it } from "vitest";
import { addBuckets, LATENCY_BOUNDS_MS, LATENCY_BUCKETS, latencyBucketOf, quantileOf } from "./quantile";

describe("latency histograms", () => {
  it("a duration falls in the bucket whose upper bound it does not exceed", () => {
    expect(latencyBucketOf(0)).toBe(0);
    expect(latencyBucketOf(1)).toBe(0);
    expect(latencyBucketOf(1.01)).toBe(1);
    expect(latencyBucketOf(100)).toBe(LATENCY_BOUNDS_MS.indexOf(100));
    expect(latencyBucketOf(5000)).toBe(LATENCY_BOUNDS_MS.length - 1);
    expect(latencyBucketOf(60_000)).toBe(LATENCY_BUCKETS - 1);
  });

  it("histograms add element-wise, a shorter one counting as zeros", () => {
    expect(addBuckets([1, 2, 3], [10, 20])).toEqual([11, 22, 3]);
    expect(addBuckets([], [1, 2])).toEqual([1, 2]);
  });
});

describe("quantileOf interpolates inside the bucket the quantile falls in (like histogram_quantile)", () => {
  const bounds = [10, 20, 40];

  it("is null for an empty histogram", () => {
    expect(quantileOf(0.5, [0, 0, 0, 0], bounds)).toBeNull();
    expect(quantileOf(0.5, [], bounds)).toBeNull();
  });

  it("the first bucket starts at 0", () => {
    // 10 requests, all ≤ 10 ms: the median is half way through (0, 10].
    expect(quantileOf(0.5, [10, 0, 0, 0], bounds)).toBe(5);
    expect(quantileOf(0.99, [10, 0, 0, 0], bounds)).toBeCloseTo(9.9);
  });

  it("walks the cumulative counts to the right bucket and interpolates linearly in it", () => {
    // 50 in (0,10], 30 in (10,20], 20 in (20,40]: p50 closes the first bucket, p95 is 3/4 into the third.
    const h = [50, 30, 20, 0];
    expect(quantileOf(0.5, h, bounds)).toBe(10);
    expect(quantileOf(0.65, h, bounds)).toBe(15);
    expect(quantileOf(0.95, h, bounds)).toBe(35);
  });

  it("skips empty buckets", () => {
    expect(quantileOf(0.5, [0, 0, 4, 0], bounds)).toBe(30);
  });

  it("a quantile in the unbounded last bucket is the last bound", () => {
    expect(quantileOf(0.99, [1, 0, 0, 99], bounds)).toBe(40);
    expect(quantileOf(0.5, [0, 0, 0, 3], bounds)).toBe(40);
  });

  it("uses the product's bounds by default", () => {
    const h = new Array(LATENCY_BUCKETS).fill(0);
    h[latencyBucketOf(7)] = 100; // (5, 10]
    expect(quantileOf(0.5, h)).toBe(7.5);
  });
});
