/** Latency percentiles of one measured phase; pure, so it is unit-tested. */

export interface LatencyStats {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/**
 * Nearest-rank percentile (the smallest sample with at least p % of the samples at or below it):
 * always an observed value, never an interpolation between two ceremonies.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** Stats of the samples (milliseconds); NaN everywhere when there are none. */
export function computeLatencyStats(samples: ArrayLike<number>): LatencyStats {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
    mean: sorted.length ? sum / sorted.length : NaN,
  };
}
