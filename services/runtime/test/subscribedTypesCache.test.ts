/** A producer's memory of what a project's endpoints subscribe to: when it may skip an event, and when it must not. */
import { describe, expect, it } from 'vitest';
import { createSubscriptionCheck, type SubscribedTypes } from '../subscribedTypesCache.js';

function harness(answer: (projectId: string) => Promise<SubscribedTypes>) {
  let clock = 1000;
  const asked: string[] = [];
  const check = createSubscriptionCheck(
    (projectId) => {
      asked.push(projectId);
      return answer(projectId);
    },
    { now: () => clock, failureBackoffMs: 1000 },
  );
  return { check, asked, advance: (ms: number) => (clock += ms) };
}

describe('subscription check', () => {
  it('skips only types nobody subscribes to, relying on an answer for validMs from when it was asked', async () => {
    let release: (v: SubscribedTypes) => void = () => undefined;
    const h = harness(() => new Promise((resolve) => (release = resolve)));
    const pending = h.check('pro-1', 'user.created');
    // The answer arrives 400 ms after the question: its 500 ms count from the question.
    h.advance(400);
    release({ types: ['passkey.created'], validMs: 500 });
    const skip = await pending;
    expect(skip?.()).toBe(true);
    expect(await h.check('pro-1', 'passkey.created')).toBeNull();
    h.advance(99);
    expect(skip?.()).toBe(true);
    h.advance(1);
    expect(skip?.()).toBe(false);
    expect(h.asked).toEqual(['pro-1']);
  });

  it('asks again once the answer ran out, and once per project for concurrent changes', async () => {
    const h = harness(async () => ({ types: [], validMs: 500 }));
    const skips = await Promise.all([h.check('pro-1', 'user.created'), h.check('pro-1', 'user.deleted'), h.check('pro-2', 'user.created')]);
    expect(skips.every((s) => s?.() === true)).toBe(true);
    expect(h.asked.sort()).toEqual(['pro-1', 'pro-2']);
    h.advance(500);
    expect((await h.check('pro-1', 'user.created'))?.()).toBe(true);
    expect(h.asked).toHaveLength(3);
  });

  it('writes every event while the events service does not answer, and asks again after a second', async () => {
    let down = true;
    const h = harness(async () => {
      if (down) throw new Error('connect ECONNREFUSED');
      return { types: [], validMs: 500 };
    });
    expect(await h.check('pro-1', 'user.created')).toBeNull();
    expect(await h.check('pro-1', 'user.deleted')).toBeNull();
    expect(h.asked).toHaveLength(1);
    down = false;
    h.advance(999);
    expect(await h.check('pro-1', 'user.created')).toBeNull();
    h.advance(1);
    expect((await h.check('pro-1', 'user.created'))?.()).toBe(true);
    expect(h.asked).toHaveLength(2);
  });

  it('never skips with validMs 0 (skipping turned off)', async () => {
    const h = harness(async () => ({ types: [], validMs: 0 }));
    expect(await h.check('pro-1', 'user.created')).toBeNull();
  });
});
