import { describe, expect, it } from 'vitest';
import { formatHostSpeed, measureHostSpeed } from './measureHostSpeed.js';

describe('the host check', () => {
  it('times the workload in a child process and reports milliseconds', async () => {
    const ms = await measureHostSpeed();
    // Only that a time came back: how long it took is for the bench's report, not for a test.
    expect(Number.isFinite(ms) && ms > 0).toBe(true);
  });

  it('prints whole milliseconds, or says it could not run', () => {
    expect(formatHostSpeed('after login', 342.6)).toBe('host check (after login): the fixed CPU workload took 343 ms');
    expect(formatHostSpeed('before the stack starts', NaN)).toBe('host check (before the stack starts): the fixed CPU workload took - (could not run)');
  });
});
