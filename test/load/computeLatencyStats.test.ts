import { describe, expect, it } from 'vitest';
import { computeLatencyStats, percentile } from './computeLatencyStats.js';

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it('is an observed sample: p50 of 1..100 is 50, p90 is 90, p99 is 99, p100 is 100', () => {
    expect([50, 90, 99, 100].map((p) => percentile(hundred, p))).toEqual([50, 90, 99, 100]);
  });

  it('rounds the rank up on small samples and clamps to the first sample', () => {
    expect(percentile([10, 20, 30], 50)).toBe(20);
    expect(percentile([10, 20, 30], 99)).toBe(30);
    expect(percentile([10, 20, 30], 0)).toBe(10);
  });

  it('is NaN without samples', () => {
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('computeLatencyStats', () => {
  it('sorts numerically (not as strings) and reports count, mean and max', () => {
    const s = computeLatencyStats([100, 9, 20, 3]);
    expect(s).toEqual({ count: 4, p50: 9, p90: 100, p99: 100, max: 100, mean: 33 });
  });

  it('is all NaN but the count for no samples', () => {
    const s = computeLatencyStats([]);
    expect(s.count).toBe(0);
    expect(s.p50).toBeNaN();
    expect(s.mean).toBeNaN();
  });
});
