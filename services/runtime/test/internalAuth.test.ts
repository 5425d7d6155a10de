/**
 * Authenticated internal calls: keys, the caller's token, and the service's refusal of calls
 * without a valid one (missing, forged, expired, other key), including during a key rotation.
 */
import { Code, createClient, createRouterTransport } from '@connectrpc/connect';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { CALLER_HEADER, callerAuthInterceptor, internalAuthInterceptor, internalTokenSource, parseInternalAuthKeys } from '../internalAuth.js';
import { settleToCode } from './settleToCode.js';

const KEY_A = 'a'.repeat(64);
const KEY_B = Buffer.alloc(32, 7).toString('base64');

/** A service with the given keys, reached by a caller with `callerToken` (or none). */
function service(keys: string, callerToken?: () => Promise<string>) {
  const warnings: unknown[] = [];
  const logger = { warn: (o: unknown) => void warnings.push(o) };
  const transport = createRouterTransport((router) => router.service(UserService, { getUser: (req) => ({ user: { userId: req.userId } }) }), {
    router: { interceptors: [internalAuthInterceptor(parseInternalAuthKeys(keys), logger)] },
    transport: { interceptors: callerToken ? [callerAuthInterceptor(callerToken)] : [] },
  });
  return { client: createClient(UserService, transport), warnings };
}

describe('parseInternalAuthKeys', () => {
  it('reads hex and base64 keys, the first one signing', () => {
    const keys = parseInternalAuthKeys(`${KEY_A}, ${KEY_B}`);
    expect(keys.verifying).toHaveLength(2);
    expect(Buffer.from(keys.signing).toString('hex')).toBe(KEY_A);
  });

  it('refuses short keys and an empty list, naming the problem', () => {
    expect(() => parseInternalAuthKeys('abcd')).toThrow(/key 1 has 2 bytes; at least 32/);
    expect(() => parseInternalAuthKeys(' , ')).toThrow(/no key given/);
  });
});

describe('internal calls', () => {
  it('a caller with the shared key gets through; its token is signed once per half lifetime', async () => {
    let t = 1_000_000_000_000;
    const token = internalTokenSource(parseInternalAuthKeys(KEY_A), 'gateway', () => t);
    const first = await token();
    t += 29_000;
    expect(await token()).toBe(first);
    t += 2_000;
    expect(await token()).not.toBe(first);
    const { client } = service(KEY_A, internalTokenSource(parseInternalAuthKeys(KEY_A), 'gateway'));
    expect((await client.getUser({ userId: 'usr-1' })).user?.userId).toBe('usr-1');
  });

  it('refuses a call without a token, with a forged one, with one of another key, and an expired one, and logs it', async () => {
    const { client: bare, warnings } = service(KEY_A);
    expect(await settleToCode(bare.getUser({ userId: 'usr-1' }))).toBe(Code.Unauthenticated);
    expect(await settleToCode(bare.getUser({ userId: 'usr-1' }, { headers: { [CALLER_HEADER]: 'not.a.jwt' } }))).toBe(Code.Unauthenticated);
    const otherKey = await internalTokenSource(parseInternalAuthKeys(KEY_B), 'intruder')();
    expect(await settleToCode(bare.getUser({ userId: 'usr-1' }, { headers: { [CALLER_HEADER]: otherKey } }))).toBe(Code.Unauthenticated);
    const iat = Math.floor(Date.now() / 1000) - 120;
    const expired = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer('gateway').setAudience('passkeyauth-internal').setIssuedAt(iat).setExpirationTime(iat + 60).sign(Buffer.from(KEY_A, 'hex'));
    expect(await settleToCode(bare.getUser({ userId: 'usr-1' }, { headers: { [CALLER_HEADER]: expired } }))).toBe(Code.Unauthenticated);
    expect(warnings).toHaveLength(4);
    expect(JSON.stringify(warnings)).not.toContain(expired);
  });

  it('during a rotation ("new,old") tokens of both keys pass; after it ("new") only the new one', async () => {
    const oldCaller = internalTokenSource(parseInternalAuthKeys(KEY_A), 'connect');
    const newCaller = internalTokenSource(parseInternalAuthKeys(`${KEY_B},${KEY_A}`), 'connect');
    expect(await settleToCode(service(`${KEY_B},${KEY_A}`, oldCaller).client.getUser({ userId: 'usr-1' }))).toBe('ok');
    expect(await settleToCode(service(`${KEY_B},${KEY_A}`, newCaller).client.getUser({ userId: 'usr-1' }))).toBe('ok');
    expect(await settleToCode(service(KEY_B, newCaller).client.getUser({ userId: 'usr-1' }))).toBe('ok');
    expect(await settleToCode(service(KEY_B, oldCaller).client.getUser({ userId: 'usr-1' }))).toBe(Code.Unauthenticated);
  });
});
