/**
 * Internal calls are bound to who may do what (issue #29, item 9). Attacks on the services' own
 * ports, as a process on the network could make them: without a token or with a forged one; with a
 * correctly signed token naming `challenge` that tries to delete a user through connect (which
 * worked before: every caller could call every RPC); with a token that never expires, lives a day,
 * or was minted for another service. Each is refused and the user is still there; the same calls
 * through the gateway, and the look-up `challenge` does need, still work.
 */
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { audienceOf, CALLER_HEADER, internalTokenSource, parseInternalAuthKeys } from '../../services/runtime/internalAuth.js';
import { backendClientInformation, basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

let stack: Stack;
let project: ProjectJson;

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('internal-calls-attack');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const FORGED = 'eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJnYXRld2F5IiwiYXVkIjoicGFzc2tleWF1dGgtaW50ZXJuYWwiLCJleHAiOjQxMDI0NDQ4MDB9.c2lnbmF0dXJl';
const DELETE_USER = 'passkeyauth.connect.v1.UserService/DeleteUser';
const GET_USER = 'passkeyauth.connect.v1.UserService/GetUser';

/** A Connect JSON call straight to a service's port, acting for the project. */
async function direct(port: number, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`http://127.0.0.1:${port}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-passkeyauth-project-id': project.projectID, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, code: ((await res.json()) as { code?: string }).code };
}

async function createUser(): Promise<string> {
  const res = await fetch(`${stack.backendUrl}/v2/users`, { method: 'POST', headers: { authorization: basic(project), 'content-type': 'application/json' }, body: JSON.stringify({ fullName: 'Ada', status: 'active' }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { userID: string }).userID;
}

async function userStatus(userID: string): Promise<number> {
  return (await fetch(`${stack.backendUrl}/v2/users/${userID}`, { headers: { authorization: basic(project) } })).status;
}

/** A token signed with the stack's own key carrying exactly these claims. */
function signed(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(parseInternalAuthKeys(stack.internalAuthKeys).signing);
}

const logged = (message: string) => stack.logs.filter((l) => l.includes(message)).length;

describe('internal calls', () => {
  it('without proof of the caller are refused by every service, with or without a forged token, and logged', async () => {
    const userID = await createUser();
    const calls: [number, string, unknown][] = [
      [stack.ports.challenge, 'passkeyauth.challenge.v1.ChallengeService/CreateChallenge', { userId: userID, challengeType: 'email_otp', identifierValue: 'ada@example.com', clientInformation: backendClientInformation }],
      [stack.ports.ceremony, 'passkeyauth.ceremony.v1.CeremonyService/StartMediation', { clientInformation: backendClientInformation }],
      [stack.ports.connect, GET_USER, { userID }],
    ];
    const before = logged('refused an internal call without a valid caller token');
    for (const [port, path, body] of calls) {
      for (const headers of [{}, { [CALLER_HEADER]: FORGED }] as Record<string, string>[]) {
        expect({ path, ...(await direct(port, path, body, headers)) }).toEqual({ path, status: 401, code: 'unauthenticated' });
      }
    }
    // Services write their log lines in batches (services/runtime/logger.ts: within LOG_FLUSH_MS).
    await vi.waitFor(() => expect(logged('refused an internal call without a valid caller token') - before).toBeGreaterThanOrEqual(6), { timeout: 5000 });
    // The same challenge through the gateway, which proves itself.
    const b1 = await fetch(`${stack.backendUrl}/v2/users/${userID}/challenges`, {
      method: 'POST',
      headers: { authorization: basic(project), 'content-type': 'application/json' },
      body: JSON.stringify({ challengeType: 'email_otp', identifierValue: 'ada@example.com', clientInformation: backendClientInformation }),
    });
    expect(b1.status).toBe(200);
  });

  it('a valid token naming "challenge" may look a user up but not delete one through connect (permission_denied, logged)', async () => {
    const userID = await createUser();
    const asChallenge = { [CALLER_HEADER]: await internalTokenSource(parseInternalAuthKeys(stack.internalAuthKeys), 'challenge')('connect') };
    expect(await direct(stack.ports.connect, GET_USER, { userID }, asChallenge)).toEqual({ status: 200, code: undefined });
    expect(await direct(stack.ports.connect, DELETE_USER, { userID }, asChallenge)).toEqual({ status: 403, code: 'permission_denied' });
    const asCeremony = { [CALLER_HEADER]: await internalTokenSource(parseInternalAuthKeys(stack.internalAuthKeys), 'ceremony')('connect') };
    expect(await direct(stack.ports.connect, DELETE_USER, { userID }, asCeremony)).toEqual({ status: 403, code: 'permission_denied' });
    expect(await userStatus(userID)).toBe(200);
    await vi.waitFor(() => expect(logged('refused an internal call the caller may not make')).toBeGreaterThanOrEqual(2), { timeout: 5000 });
    expect(stack.logs.find((l) => l.includes('refused an internal call the caller may not make'))).toContain('"caller":"challenge"');
  });

  it('a token without exp, one that lives a day, one from the future and one for another service are refused, and the user stays', async () => {
    const userID = await createUser();
    const now = Math.floor(Date.now() / 1000);
    const forConnect = { iss: 'gateway', aud: audienceOf('connect') };
    const tokens: Record<string, string> = {
      'no exp': await signed({ ...forConnect, iat: now }),
      'a day long': await signed({ ...forConnect, iat: now, exp: now + 86_400 }),
      'from the future': await signed({ ...forConnect, iat: now + 3600, exp: now + 3660 }),
      'for ceremony': await internalTokenSource(parseInternalAuthKeys(stack.internalAuthKeys), 'gateway')('ceremony'),
      'for every service (the old shared audience)': await signed({ iss: 'gateway', aud: 'passkeyauth-internal', iat: now, exp: now + 60 }),
      'signed with another key': await new SignJWT({ ...forConnect, iat: now, exp: now + 60 }).setProtectedHeader({ alg: 'HS256' }).sign(randomBytes(32)),
    };
    for (const [name, token] of Object.entries(tokens)) {
      expect({ name, ...(await direct(stack.ports.connect, DELETE_USER, { userID }, { [CALLER_HEADER]: token })) }).toEqual({ name, status: 401, code: 'unauthenticated' });
    }
    expect(await userStatus(userID)).toBe(200);
    // The gateway's own route still deletes (the gateway may call what it routes).
    expect((await fetch(`${stack.backendUrl}/v2/users/${userID}`, { method: 'DELETE', headers: { authorization: basic(project) } })).status).toBe(200);
    expect(await userStatus(userID)).toBe(404);
  });
});
