/**
 * Authenticated internal calls: keys (strictly parsed), the caller's tokens (one per target
 * service), and the service's refusal of calls without a valid token (missing, forged, other key,
 * expired, no exp/iat/iss, too long-lived, issued in the future, for another service) and of calls
 * the caller may not make; a verified token is checked once, not on every call.
 */
import { randomBytes } from 'node:crypto';
import { Code, createClient, createRouterTransport } from '@connectrpc/connect';
import * as jose from 'jose';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { audienceOf, CALLER_HEADER, callerAuthInterceptor, internalAuthInterceptor, internalTokenSource, parseInternalAuthKeys } from '../internalAuth.js';
import type { InternalService } from '../internalCallPolicy.js';
import { settleToCode } from './settleToCode.js';

// Counts the HMAC checks the interceptor makes (jose's jwtVerify), to show verified tokens are remembered.
vi.mock('jose', async (importOriginal) => {
  const actual = await importOriginal<typeof import('jose')>();
  return { ...actual, jwtVerify: vi.fn(actual.jwtVerify) };
});
afterEach(() => vi.mocked(jose.jwtVerify).mockClear());

const KEY_A = randomBytes(32).toString('hex');
const KEY_B = `base64:${randomBytes(32).toString('base64')}`;
const keyBytes = (k: string) => (k.startsWith('base64:') ? Buffer.from(k.slice(7), 'base64') : Buffer.from(k, 'hex'));

/** The connect service's UserService (or another `service`'s, by name) with the given keys, reached with `token` (or none). */
function service(keys: string, token?: () => Promise<string>, opts: { service?: InternalService; now?: () => number } = {}) {
  const warnings: Record<string, unknown>[] = [];
  const logger = { warn: (o: Record<string, unknown>) => void warnings.push(o) };
  const transport = createRouterTransport(
    (router) => router.service(UserService, { getUser: (req) => ({ user: { userId: req.userId } }), deleteUser: () => ({}) }),
    {
      router: { interceptors: [internalAuthInterceptor({ keys: parseInternalAuthKeys(keys), service: opts.service ?? 'connect', logger, now: opts.now })] },
      transport: { interceptors: token ? [callerAuthInterceptor(token)] : [] },
    },
  );
  return { client: createClient(UserService, transport), warnings };
}

/** A token signed with `key` carrying exactly the given claims (any of them may be left out). */
function mint(claims: { iss?: string; aud?: string; iat?: number; exp?: number }, key = KEY_A): Promise<string> {
  return new jose.SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(keyBytes(key));
}
const nowSeconds = () => Math.floor(Date.now() / 1000);
const valid = () => ({ iss: 'gateway', aud: audienceOf('connect'), iat: nowSeconds(), exp: nowSeconds() + 60 });

describe('parseInternalAuthKeys', () => {
  it('reads hex and base64: keys, the first one signing', () => {
    const keys = parseInternalAuthKeys(`${KEY_A}, ${KEY_B}`);
    expect(keys.verifying).toHaveLength(2);
    expect(Buffer.from(keys.signing).toString('hex')).toBe(KEY_A);
    expect(Buffer.from(keys.verifying[1])).toEqual(keyBytes(KEY_B));
  });

  it('refuses what is not a random key of 32+ bytes, naming the problem and how to make one', () => {
    const refused: [string, RegExp][] = [
      ['', /no key given/],
      [' , ', /no key given/],
      ['abcd', /key 1 has 2 bytes; at least 32/],
      [`${KEY_A}0`, /key 1 has an odd number of hex digits \(65\)/],
      ['correct horse battery staple and then some more words to be long', /key 1 is neither hex nor "base64:…" \(a passphrase is not a key\)/],
      // base64 without its prefix is not guessed at: "abcd…" would be hex.
      [randomBytes(32).toString('base64').replace(/^[0-9a-fA-F]/, 'x'), /key 1 is neither hex nor "base64:…"/],
      ['base64:not base64!', /key 1 is not valid base64 after "base64:"/],
      [`base64:${randomBytes(31).toString('base64')}`, /key 1 has 31 bytes; at least 32/],
      ['a'.repeat(64), /key 1 has only 1 distinct byte values/],
      ['deadbeef'.repeat(8), /key 1 has only 4 distinct byte values/],
      [`base64:${Buffer.alloc(32, 7).toString('base64')}`, /key 1 has only 1 distinct byte values/],
      [`${KEY_A},secret-passphrase`, /key 2 is neither hex/],
    ];
    for (const [value, message] of refused) {
      expect(() => parseInternalAuthKeys(value), value).toThrow(message);
      expect(() => parseInternalAuthKeys(value), value).toThrow(/openssl rand -hex 32/);
    }
  });
});

describe('caller tokens', () => {
  it('name the caller and one target service, live 60 s, and are signed once per half lifetime per target', async () => {
    let t = 1_000_000_000_000;
    const tokens = internalTokenSource(parseInternalAuthKeys(KEY_A), 'ceremony', () => t);
    const first = await tokens('connect');
    expect(jose.decodeJwt(first)).toEqual({ iss: 'ceremony', aud: 'passkeyauth-internal:connect', iat: t / 1000, exp: t / 1000 + 60 });
    expect(jose.decodeJwt(await tokens('challenge')).aud).toBe('passkeyauth-internal:challenge');
    t += 29_000;
    expect(await tokens('connect')).toBe(first);
    t += 2_000;
    expect(await tokens('connect')).not.toBe(first);
  });
});

describe('internal calls', () => {
  it('a caller with the shared key and a token for this service gets through', async () => {
    const tokens = internalTokenSource(parseInternalAuthKeys(KEY_A), 'gateway');
    const { client, warnings } = service(KEY_A, () => tokens('connect'));
    expect((await client.getUser({ userId: 'usr-1' })).user?.userId).toBe('usr-1');
    expect(await settleToCode(client.deleteUser({ userId: 'usr-1' }))).toBe('ok');
    expect(warnings).toEqual([]);
  });

  it('refuses tokens that prove nothing (missing, forged, other key, expired, no exp/iat/iss, unknown caller, too long-lived, from the future, for another service) and logs why, never the token', async () => {
    const { client, warnings } = service(KEY_A);
    const now = nowSeconds();
    const { exp: _exp, ...noExp } = valid();
    const { iat: _iat, ...noIat } = valid();
    const { iss: _iss, ...noIss } = valid();
    const cases: [string, string | undefined][] = [
      ['missing', undefined],
      ['not a JWT', 'not.a.jwt'],
      ['other key', await mint(valid(), KEY_B)],
      ['expired', await mint({ ...valid(), iat: now - 120, exp: now - 60 })],
      ['no exp', await mint(noExp)],
      ['no iat', await mint(noIat)],
      ['no iss', await mint(noIss)],
      ['unknown caller', await mint({ ...valid(), iss: 'intruder' })],
      ['lives an hour', await mint({ ...valid(), exp: now + 3600 })],
      ['issued in the future', await mint({ ...valid(), iat: now + 60, exp: now + 120 })],
      ['for ceremony', await mint({ ...valid(), aud: audienceOf('ceremony') })],
      ['for the old shared audience', await mint({ ...valid(), aud: 'passkeyauth-internal' })],
    ];
    for (const [name, token] of cases) {
      const headers: Record<string, string> = token ? { [CALLER_HEADER]: token } : {};
      expect({ name, code: await settleToCode(client.getUser({ userId: 'usr-1' }, { headers })) }).toEqual({ name, code: Code.Unauthenticated });
    }
    expect(warnings).toHaveLength(cases.length);
    expect(warnings.map((w) => w.reason)).toEqual([
      'missing',
      expect.stringMatching(/JWS|JWT|Invalid/i),
      'signature verification failed',
      expect.stringMatching(/"exp" claim timestamp check failed/),
      'missing required "exp" claim',
      'missing required "iat" claim',
      'missing required "iss" claim',
      'unexpected "iss" claim value',
      'lifetime 3600 s exceeds 120 s',
      '"iat" is in the future',
      'unexpected "aud" claim value',
      'unexpected "aud" claim value',
    ]);
    const logged = JSON.stringify(warnings);
    for (const [, token] of cases) if (token) expect(logged).not.toContain(token);
  });

  it('with several keys, names the real reason: a token of the first key without exp is not tried against the second', async () => {
    const { client, warnings } = service(`${KEY_A},${KEY_B}`);
    const { exp: _exp, ...noExp } = valid();
    expect(await settleToCode(client.getUser({ userId: 'usr-1' }, { headers: { [CALLER_HEADER]: await mint(noExp, KEY_A) } }))).toBe(Code.Unauthenticated);
    expect(await settleToCode(client.getUser({ userId: 'usr-1' }, { headers: { [CALLER_HEADER]: await mint(valid(), KEY_B) } }))).toBe('ok');
    expect(warnings.map((w) => w.reason)).toEqual(['missing required "exp" claim']);
    expect(vi.mocked(jose.jwtVerify)).toHaveBeenCalledTimes(3);
  });

  it('refuses a valid caller what the call policy does not give it (permission_denied, logged with the caller)', async () => {
    const challengeTokens = internalTokenSource(parseInternalAuthKeys(KEY_A), 'challenge');
    const { client, warnings } = service(KEY_A, () => challengeTokens('connect'));
    expect(await settleToCode(client.getUser({ userId: 'usr-1' }))).toBe('ok');
    expect(await settleToCode(client.deleteUser({ userId: 'usr-1' }))).toBe(Code.PermissionDenied);
    expect(warnings).toEqual([{ rpc: 'passkeyauth.connect.v1.UserService/DeleteUser', caller: 'challenge' }]);
    // The same procedures are not served to anyone by a process that is not connect: a token for
    // "ceremony" proves nothing to connect, and connect's RPCs are in no caller's list at ceremony.
    const gatewayTokens = internalTokenSource(parseInternalAuthKeys(KEY_A), 'gateway');
    const atCeremony = service(KEY_A, () => gatewayTokens('ceremony'), { service: 'ceremony' });
    expect(await settleToCode(atCeremony.client.getUser({ userId: 'usr-1' }))).toBe(Code.PermissionDenied);
  });

  it('checks a token once (one HMAC per token, not per call) and stops accepting it when it expires', async () => {
    let t = Date.now();
    const tokens = internalTokenSource(parseInternalAuthKeys(KEY_A), 'challenge', () => t);
    const first = await tokens('connect');
    let sent = first;
    const { client } = service(KEY_A, async () => sent, { now: () => t });
    for (let i = 0; i < 20; i++) expect(await settleToCode(client.getUser({ userId: 'usr-1' }))).toBe('ok');
    // Refused calls do not re-verify either: the permission is looked up for the remembered caller.
    expect(await settleToCode(client.deleteUser({ userId: 'usr-1' }))).toBe(Code.PermissionDenied);
    expect(vi.mocked(jose.jwtVerify)).toHaveBeenCalledTimes(1);
    // Past its exp (and the clock tolerance) the remembered token is checked again, and refused;
    // the caller's renewed token is checked once more and accepted.
    t += 61_000 + 10_000;
    expect(await settleToCode(client.getUser({ userId: 'usr-1' }))).toBe(Code.Unauthenticated);
    sent = await tokens('connect');
    expect(sent).not.toBe(first);
    expect(await settleToCode(client.getUser({ userId: 'usr-1' }))).toBe('ok');
    expect(vi.mocked(jose.jwtVerify)).toHaveBeenCalledTimes(3);
  });
});
