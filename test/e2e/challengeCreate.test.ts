/** B1 end to end: POST /v2/users/{userID}/challenges through the gateway into the challenge service. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

let stack: Stack;
let project: ProjectJson;
let userID: string;

async function backend(path: string, init: { method?: string; body?: unknown; auth?: string } = {}) {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method: init.method ?? 'POST',
    headers: { authorization: init.auth ?? basic(project), 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any>, headers: res.headers };
}

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('challenge-e2e');
  const created = await backend('/v2/users', { body: { fullName: 'Ada Lovelace', status: 'active' } });
  expect(created.status).toBe(200);
  userID = created.body.userID;
}, 120_000);
afterAll(async () => stack?.stop());

describe('B1 create challenge', () => {
  it('creates an email OTP with all six fields and stores only a hash of the value', async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await backend(`/v2/users/${userID}/challenges`, {
      body: { challengeType: 'email_otp', identifierValue: ' Ada@Example.COM ', clientInformation: backendClientInformation },
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['challengeID', 'expires', 'identifierValue', 'status', 'type', 'value']);
    expect(r.body.type).toBe('email_otp');
    expect(r.body.status).toBe('pending');
    expect(r.body.identifierValue).toBe('ada@example.com');
    expect(r.body.value).toMatch(/^[0-9]{6}$/);
    expect(typeof r.body.expires).toBe('number');
    expect(r.body.expires).toBeGreaterThanOrEqual(before + 300);
    expect(r.body.expires).toBeLessThanOrEqual(before + 302);
    const stored = await stack.db.collection('challenges').findOne({ _id: r.body.challengeID });
    expect(stored).not.toBeNull();
    expect(JSON.stringify(stored)).not.toContain(`"${r.body.value}"`);
    expect(stored!.valueHash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.headers.get('x-request-id')).toMatch(/^req-/);
  });

  it('creates an email link with a 256-bit token and an SMS OTP with a 6-digit code', async () => {
    const link = await backend(`/v2/users/${userID}/challenges`, {
      body: { challengeType: 'email_link', identifierValue: 'ada@example.com', clientInformation: backendClientInformation, lifetimeSeconds: 3600, challengeMetadata: { lang: 'en' } },
    });
    expect(link.status).toBe(200);
    expect(Buffer.from(link.body.value, 'base64url').length).toBeGreaterThanOrEqual(16);
    const sms = await backend(`/v2/users/${userID}/challenges`, {
      body: { challengeType: 'sms_otp', identifierValue: '+49 151 1234 5678', clientInformation: backendClientInformation },
    });
    expect(sms.status).toBe(200);
    expect(sms.body.value).toMatch(/^[0-9]{6}$/);
    expect(sms.body.identifierValue).toBe('+4915112345678');
  });

  it('rejects a lifetime outside the bounds of the type with a 400 naming lifetimeSeconds', async () => {
    for (const lifetimeSeconds of [59, 3601]) {
      const r = await backend(`/v2/users/${userID}/challenges`, {
        body: { challengeType: 'email_otp', identifierValue: 'ada@example.com', clientInformation: backendClientInformation, lifetimeSeconds },
      });
      expect(r.status).toBe(400);
      expect(r.body.error.validation).toEqual([expect.objectContaining({ field: 'lifetimeSeconds' })]);
    }
  });

  it('answers 404 for an unknown user', async () => {
    const r = await backend('/v2/users/usr-12345/challenges', {
      body: { challengeType: 'email_otp', identifierValue: 'ada@example.com', clientInformation: backendClientInformation },
    });
    expect(r.status).toBe(404);
    expect(r.body.error.type).toBe('user_not_found');
  });

  it("answers 404 for another project's user, never its data", async () => {
    const other = await stack.createProject('challenge-e2e-other');
    const r = await backend(`/v2/users/${userID}/challenges`, {
      auth: basic(other),
      body: { challengeType: 'email_otp', identifierValue: 'ada@example.com', clientInformation: backendClientInformation },
    });
    expect(r.status).toBe(404);
    expect(JSON.stringify(r.body)).not.toContain('ada@example.com');
  });

  it('rejects a challenge type outside the enum and a missing clientInformation', async () => {
    const bad = await backend(`/v2/users/${userID}/challenges`, {
      body: { challengeType: 'EMAIL_OTP', identifierValue: 'ada@example.com', clientInformation: backendClientInformation },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.validation.map((v: { field: string }) => v.field)).toContain('challengeType');
    const missing = await backend(`/v2/users/${userID}/challenges`, { body: { challengeType: 'email_otp', identifierValue: 'ada@example.com' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error.validation.map((v: { field: string }) => v.field)).toContain('clientInformation');
  });
});

describe('PATCH and GET /v2/users/{userID}/challenges/{challengeID}', () => {
  /** A fresh user, so each case has its own creation limits. */
  async function newUser(): Promise<string> {
    const r = await backend('/v2/users', { body: { fullName: 'Grace Hopper', status: 'active' } });
    expect(r.status).toBe(200);
    return r.body.userID;
  }
  async function newChallenge(user: string, identifierValue: string) {
    const r = await backend(`/v2/users/${user}/challenges`, { body: { challengeType: 'email_otp', identifierValue, clientInformation: backendClientInformation } });
    expect(r.status).toBe(200);
    return r.body as { challengeID: string; value: string; expires: number };
  }
  const wrong = (value: string) => String((Number(value) + 1) % 1_000_000).padStart(6, '0');

  it('a wrong value is 400 with the attempts left; the right value is 200 completed without a value; GET shows it; a second right value is 409', async () => {
    const user = await newUser();
    const c = await newChallenge(user, 'patch-1@example.com');
    const path = `/v2/users/${user}/challenges/${c.challengeID}`;

    const pending = await backend(path, { method: 'GET' });
    expect(pending.status).toBe(200);
    expect(pending.body).toEqual({ challengeID: c.challengeID, type: 'email_otp', identifierValue: 'patch-1@example.com', expires: c.expires, status: 'pending' });

    const bad = await backend(path, { method: 'PATCH', body: { value: wrong(c.value) } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('challenge_value_invalid');
    expect(bad.body.error.details).toContain('4 attempt(s) left');

    const ok = await backend(path, { method: 'PATCH', body: { value: c.value } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ challengeID: c.challengeID, type: 'email_otp', identifierValue: 'patch-1@example.com', expires: c.expires, status: 'completed' });

    const got = await backend(path, { method: 'GET' });
    expect(got.status).toBe(200);
    expect(got.body.status).toBe('completed');
    expect(got.body).not.toHaveProperty('value');

    const again = await backend(path, { method: 'PATCH', body: { value: c.value } });
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe('challenge_already_completed');

    const stored = await stack.db.collection<{ _id: string }>('challenges').findOne({ _id: c.challengeID });
    expect(stored).toMatchObject({ status: 'completed', attempts: 1 });
    expect(JSON.stringify(stored)).not.toContain(`"${c.value}"`);
  });

  it("answers 404 for another project's challenge (PATCH and GET), which stays untouched", async () => {
    const user = await newUser();
    const c = await newChallenge(user, 'patch-2@example.com');
    const other = await stack.createProject('challenge-e2e-patch-other');
    const path = `/v2/users/${user}/challenges/${c.challengeID}`;
    for (const [method, body] of [['PATCH', { value: c.value }], ['GET', undefined]] as const) {
      const r = await backend(path, { method, body, auth: basic(other) });
      expect(r.status, method).toBe(404);
      expect(r.body.error.type).toBe('challenge_not_found');
      expect(JSON.stringify(r.body)).not.toContain('patch-2@example.com');
    }
    expect((await backend(path, { method: 'GET' })).body.status).toBe('pending');
  });

  it('five wrong values lock the challenge: 410 challenge_expired, and GET says expired', async () => {
    const user = await newUser();
    const c = await newChallenge(user, 'patch-3@example.com');
    const path = `/v2/users/${user}/challenges/${c.challengeID}`;
    for (let left = 4; left >= 1; left--) {
      const r = await backend(path, { method: 'PATCH', body: { value: wrong(c.value) } });
      expect(r.status).toBe(400);
      expect(r.body.error.details).toContain(`${left} attempt(s) left`);
    }
    const locked = await backend(path, { method: 'PATCH', body: { value: wrong(c.value) } });
    expect(locked.status).toBe(410);
    expect(locked.body.error.type).toBe('challenge_expired');
    expect(locked.body.error.details).toContain('too many wrong values');
    const right = await backend(path, { method: 'PATCH', body: { value: c.value } });
    expect(right.status).toBe(410);
    expect((await backend(path, { method: 'GET' })).body.status).toBe('expired');
  });

  it('two concurrent right values: one 200 completed, one 409', async () => {
    const user = await newUser();
    const c = await newChallenge(user, 'patch-4@example.com');
    const path = `/v2/users/${user}/challenges/${c.challengeID}`;
    const results = await Promise.all([1, 2].map(() => backend(path, { method: 'PATCH', body: { value: c.value } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(results.find((r) => r.status === 200)!.body.status).toBe('completed');
    expect(results.find((r) => r.status === 409)!.body.error.type).toBe('challenge_already_completed');
  });

  it('rejects a malformed challengeID and a value of the wrong type with 400', async () => {
    const user = await newUser();
    const badId = await backend(`/v2/users/${user}/challenges/cha-abc`, { method: 'PATCH', body: { value: '123456' } });
    expect(badId.status).toBe(400);
    expect(badId.body.error.validation.map((v: { field: string }) => v.field)).toContain('challengeID');
    const c = await newChallenge(user, 'patch-5@example.com');
    const badValue = await backend(`/v2/users/${user}/challenges/${c.challengeID}`, { method: 'PATCH', body: { value: 123456 } });
    expect(badValue.status).toBe(400);
    expect((await backend(`/v2/users/${user}/challenges/${c.challengeID}`, { method: 'GET' })).body.status).toBe('pending');
  });

  it('the sixth challenge for one user within ten minutes is 429 rate_limited with Retry-After', async () => {
    const user = await newUser();
    for (let i = 0; i < 5; i++) await newChallenge(user, `limit-${i}@example.com`);
    const r = await backend(`/v2/users/${user}/challenges`, { body: { challengeType: 'email_otp', identifierValue: 'limit-5@example.com', clientInformation: backendClientInformation } });
    expect(r.status).toBe(429);
    expect(r.body.error.type).toBe('rate_limited');
    const retryAfter = Number(r.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(r.body.error.details).toContain(`retry in ${retryAfter} second(s)`);
    expect(await stack.db.collection('challenges').countDocuments({ identifierValue: 'limit-5@example.com' })).toBe(0);
  });
});
