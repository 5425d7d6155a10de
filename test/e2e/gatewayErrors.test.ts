/** Every error class of the gateway, end to end: each is a structured errorRsp, never a stack trace. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

let stack: Stack;
let project: ProjectJson;
let userID: string;

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('errors-e2e');
  const res = await fetch(`${stack.backendUrl}/v2/users`, {
    method: 'POST',
    headers: { authorization: basic(project), 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'active' }),
  });
  userID = ((await res.json()) as { userID: string }).userID;
}, 120_000);
afterAll(async () => stack?.stop());

async function call(path: string, init: RequestInit & { raw?: boolean } = {}) {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method: 'POST',
    ...init,
    headers: { authorization: basic(project), 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, any>, headers: res.headers };
}

function expectErrorRsp(r: { status: number; text: string; body: Record<string, any> }, status: number, type?: string) {
  expect(r.status).toBe(status);
  expect(r.body.httpStatusCode).toBe(status);
  expect(typeof r.body.message).toBe('string');
  expect(r.body.requestData.requestID).toMatch(/\S/);
  expect(typeof r.body.runtime).toBe('number');
  expect(Array.isArray(r.body.error.links)).toBe(true);
  if (type) expect(r.body.error.type).toBe(type);
  expect(r.text).not.toMatch(/at .*\.(ts|js):\d+|node_modules|Error:/);
}

const challengePath = () => `/v2/users/${userID}/challenges`;
const validBody = { challengeType: 'email_otp', identifierValue: 'a@example.com', clientInformation: backendClientInformation };

describe('gateway error classes', () => {
  it('malformed JSON is a 400', async () => {
    expectErrorRsp(await call(challengePath(), { body: '{"challengeType": ' }), 400, 'invalid_json');
  });

  it('a body that is not a JSON object is a 400', async () => {
    expectErrorRsp(await call(challengePath(), { body: '[1,2]' }), 400, 'invalid_json');
  });

  it('a wrong content type is a 415', async () => {
    expectErrorRsp(await call(challengePath(), { body: 'challengeType=email_otp', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type');
  });

  it('a body over 256 KiB is a 413', async () => {
    const big = JSON.stringify({ ...validBody, challengeMetadata: { pad: 'x'.repeat(300 * 1024) } });
    expectErrorRsp(await call(challengePath(), { body: big }), 413, 'payload_too_large');
  });

  it('an unknown path is a 404 and a wrong method a 405 with Allow', async () => {
    expectErrorRsp(await call('/v2/nothing-here', { body: '{}' }), 404, 'route_not_found');
    const r = await call(challengePath(), { method: 'GET' });
    expectErrorRsp(r, 405, 'method_not_allowed');
    expect(r.headers.get('allow')).toBe('POST');
  });

  it('echoes a given X-Request-ID in the header and the body', async () => {
    const r = await call(challengePath(), { body: '{', headers: { 'x-request-id': 'my-trace-42' } });
    expect(r.headers.get('x-request-id')).toBe('my-trace-42');
    expect(r.body.requestData.requestID).toBe('my-trace-42');
  });

  it('a backing service that is down is a 503, and service comes back when it does', async () => {
    await stack.supervisor.stopOne('challenge');
    try {
      expectErrorRsp(await call(challengePath(), { body: JSON.stringify(validBody) }), 503, 'service_unavailable');
    } finally {
      await stack.supervisor.restartOne('challenge');
    }
    expect((await call(challengePath(), { body: JSON.stringify(validBody) })).status).toBe(200);
  });
});

describe('malformed inputs are clean 4xx', () => {
  const cases: [string, unknown, string?][] = [
    ['challengeType as a number', { ...validBody, challengeType: 7 }, 'challengeType'],
    ['identifierValue as a NoSQL operator object', { ...validBody, identifierValue: { $gt: '' } }, 'identifierValue'],
    ['clientInformation as a string', { ...validBody, clientInformation: 'x' }, 'clientInformation'],
    ['a boolean field as a string', { ...validBody, clientInformation: { ...backendClientInformation, conditionalMediationAvailable: 'yes' } }, 'clientInformation.conditionalMediationAvailable'],
    ['lifetimeSeconds as a string', { ...validBody, lifetimeSeconds: '300' }, 'lifetimeSeconds'],
    ['lifetimeSeconds as a fraction', { ...validBody, lifetimeSeconds: 300.5 }, 'lifetimeSeconds'],
    ['lifetimeSeconds beyond 2^53', { ...validBody, lifetimeSeconds: 2 ** 60 }, 'lifetimeSeconds'],
    ['challengeMetadata as an array', { ...validBody, challengeMetadata: [1] }, 'challengeMetadata'],
    ['missing challengeType', { identifierValue: 'a@example.com', clientInformation: backendClientInformation }, 'challengeType'],
    ['missing identifierValue', { challengeType: 'email_otp', clientInformation: backendClientInformation }, 'identifierValue'],
    ['an empty userAgent', { ...validBody, clientInformation: { ...backendClientInformation, userAgent: '' } }, 'clientInformation.userAgent'],
    ['challengeMetadata over 4 KiB', { ...validBody, challengeMetadata: { pad: 'x'.repeat(5000) } }, 'challengeMetadata'],
    ['deeply nested challengeMetadata', { ...validBody, challengeMetadata: JSON.parse('{"a":'.repeat(60) + '1' + '}'.repeat(60)) }, 'challengeMetadata'],
  ];
  for (const [name, body, field] of cases) {
    it(`${name} → 400 naming ${field}`, async () => {
      const r = await call(challengePath(), { body: JSON.stringify(body) });
      expectErrorRsp(r, 400);
      expect(r.body.error.validation.map((v: { field: string }) => v.field)).toContain(field);
    });
  }

  it('a bad userID format in the path → 400 naming userID', async () => {
    for (const bad of ['user-1', 'usr-abc', 'usr-1%7B%24gt%7D', '..%2Fusers']) {
      const r = await call(`/v2/users/${bad}/challenges`, { body: JSON.stringify(validBody) });
      expectErrorRsp(r, 400);
      expect(r.body.error.validation.map((v: { field: string }) => v.field)).toContain('userID');
    }
  });

  it('unknown request fields are ignored', async () => {
    const r = await call(challengePath(), { body: JSON.stringify({ ...validBody, somethingElse: { $where: 'sleep(1)' } }) });
    expect(r.status).toBe(200);
  });
});
