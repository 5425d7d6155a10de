/**
 * Proof of the caller on every Connect RPC between the processes. Each caller signs a short-lived
 * HS256 JWT (jose) with a key all processes share (INTERNAL_AUTH_KEYS, from a Kubernetes Secret;
 * `npm start` generates one) and sends it in `x-passkeyauth-caller`; every service refuses a call
 * without a valid one as `unauthenticated`. The identity headers the gateway sets (project, user,
 * client address) are only believed on calls that carry it.
 *
 * Rotation: INTERNAL_AUTH_KEYS is a comma-separated list. The first key signs, every key verifies.
 * Roll out "new,old" everywhere, then "new", and no call is refused in between.
 */
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { jwtVerify, SignJWT } from 'jose';
import type { Logger } from 'pino';

export const CALLER_HEADER = 'x-passkeyauth-caller';
const AUDIENCE = 'passkeyauth-internal';
/** A token is valid this long; callers renew theirs at half of it. */
const TOKEN_SECONDS = 60;
const MIN_KEY_BYTES = 32;

export interface InternalAuthKeys {
  /** Signs new tokens. */
  signing: Uint8Array;
  /** Every key a token may be signed with (the signing key first). */
  verifying: Uint8Array[];
}

/** Parses INTERNAL_AUTH_KEYS: comma-separated keys of at least 32 bytes, each 64+ hex digits or base64. */
export function parseInternalAuthKeys(value: string): InternalAuthKeys {
  const keys = value
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
    .map((k, i) => {
      const bytes = /^[0-9a-fA-F]+$/.test(k) && k.length % 2 === 0 ? Buffer.from(k, 'hex') : Buffer.from(k, 'base64');
      if (bytes.length < MIN_KEY_BYTES) throw new Error(`INTERNAL_AUTH_KEYS: key ${i + 1} has ${bytes.length} bytes; at least ${MIN_KEY_BYTES} are needed`);
      return new Uint8Array(bytes);
    });
  if (keys.length === 0) throw new Error('INTERNAL_AUTH_KEYS: no key given');
  return { signing: keys[0], verifying: keys };
}

/** A caller's current token, renewed before it runs out (one signature per half lifetime, not per call). */
export function internalTokenSource(keys: InternalAuthKeys, caller: string, now: () => number = Date.now): () => Promise<string> {
  let current: { token: string; renewAt: number } | null = null;
  return async () => {
    const t = now();
    if (current && current.renewAt > t) return current.token;
    const iat = Math.floor(t / 1000);
    const token = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuer(caller).setAudience(AUDIENCE).setIssuedAt(iat).setExpirationTime(iat + TOKEN_SECONDS).sign(keys.signing);
    current = { token, renewAt: t + (TOKEN_SECONDS * 1000) / 2 };
    return token;
  };
}

/** Client side: adds the caller's token to every call of a transport. */
export function callerAuthInterceptor(token: () => Promise<string>): Interceptor {
  return (next) => async (req) => {
    req.header.set(CALLER_HEADER, await token());
    return next(req);
  };
}

/**
 * Server side, outermost: refuses calls without a valid caller token. Verified tokens are
 * remembered until they expire, so a caller's token is checked once, not on every call.
 */
export function internalAuthInterceptor(keys: InternalAuthKeys, logger: Pick<Logger, 'warn'>, now: () => number = Date.now): Interceptor {
  const verified = new Map<string, number>();
  const MAX_REMEMBERED = 1000;
  const verify = async (token: string): Promise<boolean> => {
    const until = verified.get(token);
    if (until !== undefined && until > now()) return true;
    for (const key of keys.verifying) {
      try {
        const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], audience: AUDIENCE, currentDate: new Date(now()) });
        if (verified.size >= MAX_REMEMBERED) verified.clear();
        verified.set(token, (payload.exp ?? 0) * 1000);
        return true;
      } catch {
        // Try the next key: during a rotation a token may be signed with either.
      }
    }
    return false;
  };
  return (next) => async (req) => {
    const token = req.header.get(CALLER_HEADER);
    if (!token || !(await verify(token))) {
      logger.warn({ rpc: req.method.name, token: token ? 'invalid' : 'missing' }, 'refused an internal call without a valid caller token');
      throw new ConnectError('the caller is not authenticated', Code.Unauthenticated);
    }
    return next(req);
  };
}
