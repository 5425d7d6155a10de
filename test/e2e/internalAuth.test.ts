/**
 * The services refuse callers that cannot prove they are part of the stack: a direct Connect call
 * with a made-up project header (what any local process could send) gets `unauthenticated` and is
 * logged, while the same request through the gateway works.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

let stack: Stack;
let project: ProjectJson;

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('internal-auth-e2e');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const FORGED = 'eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJnYXRld2F5IiwiYXVkIjoicGFzc2tleWF1dGgtaW50ZXJuYWwiLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl';

async function direct(port: number, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`http://127.0.0.1:${port}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-passkeyauth-project-id': project.projectID, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { code?: string } };
}

describe('internal calls without proof of the caller', () => {
  it('are refused by every service, with or without a forged token, and logged', async () => {
    const user = await fetch(`${stack.backendUrl}/v2/users`, { method: 'POST', headers: { authorization: basic(project), 'content-type': 'application/json' }, body: JSON.stringify({ fullName: 'Ada', status: 'active' }) });
    const userID = ((await user.json()) as { userID: string }).userID;
    const calls: [number, string, unknown][] = [
      [stack.ports.challenge, 'passkeyauth.challenge.v1.ChallengeService/CreateChallenge', { userId: userID, challengeType: 'email_otp', identifierValue: 'ada@example.com', clientInformation: backendClientInformation }],
      [stack.ports.ceremony, 'passkeyauth.ceremony.v1.CeremonyService/StartMediation', { clientInformation: backendClientInformation }],
      [stack.ports.connect, 'passkeyauth.connect.v1.UserService/GetUser', { userId: userID }],
    ];
    for (const [port, path, body] of calls) {
      for (const headers of [{}, { 'x-passkeyauth-caller': FORGED }] as Record<string, string>[]) {
        const r = await direct(port, path, body, headers);
        expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 401, code: 'unauthenticated' });
      }
    }
    // Services write their log lines in batches (services/runtime/logger.ts: within LOG_FLUSH_MS).
    await vi.waitFor(() => expect(stack.logs.filter((l) => l.includes('refused an internal call')).length).toBeGreaterThanOrEqual(6), { timeout: 5000 });
    // The same challenge through the gateway, which proves itself.
    const b1 = await fetch(`${stack.backendUrl}/v2/users/${userID}/challenges`, {
      method: 'POST',
      headers: { authorization: basic(project), 'content-type': 'application/json' },
      body: JSON.stringify({ challengeType: 'email_otp', identifierValue: 'ada@example.com', clientInformation: backendClientInformation }),
    });
    expect(b1.status).toBe(200);
  });
});
