/**
 * Latency histograms of the health view: counts per bucket, bucket i holding durations in
 * (LATENCY_BOUNDS_MS[i-1], LATENCY_BOUNDS_MS[i]] ms and the last one everything slower than the
 * last bound. Fixed bounds, so histograms of any minutes, hours, routes, projects and instances
 * add element-wise. Changing the bounds makes the rows already stored wrong until they age out
 * (8 days): append bounds rather than move them.
 */
export const LATENCY_BOUNDS_MS = [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000] as const;
export const LATENCY_BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** The bucket a duration falls in (durations on a bound belong to the bucket it closes). */
export function latencyBucketOf(durationMs: number): number {
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) {
    if (durationMs <= (LATENCY_BOUNDS_MS[i] ?? 0)) return i;
  }
  return LATENCY_BOUNDS_MS.length;
}

/** Adds `from` into `into` element-wise (a shorter array counts as zeros). */
export function addBuckets(into: number[], from: readonly number[]): number[] {
  for (let i = 0; i < from.length; i++) into[i] = (into[i] ?? 0) + (from[i] ?? 0);
  return into;
}

/**
 * The q-quantile (0 < q < 1) of a histogram, interpolated linearly inside the bucket it falls
 * in, as Prometheus's histogram_quantile does: the first bucket starts at 0, and a quantile in
 * the unbounded last bucket is the last bound (all that is known is "slower than that").
 * `null` for an empty histogram.
 */
export function quantileOf(q: number, buckets: readonly number[], bounds: readonly number[] = LATENCY_BOUNDS_MS): number | null {
  const total = buckets.reduce((sum, n) => sum + n, 0);
  if (total <= 0) return null;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < buckets.length; i++) {
    const count = buckets[i] ?? 0;
    if (count > 0 && below + count >= rank) {
      if (i >= bounds.length) return bounds[bounds.length - 1] ?? null;
      const lower = i === 0 ? 0 : (bounds[i - 1] ?? 0);
      const upper = bounds[i] ?? lower;
      return lower + (upper - lower) * ((rank - below) / count);
    }
    below += count;
  }
  return bounds[bounds.length - 1] ?? null;
}
