/** B1 end to end: POST /v2/users/{userID}/challenges through the gateway into the challenge service. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from './stack.js';

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
