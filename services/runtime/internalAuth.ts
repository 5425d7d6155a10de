/**
 * Proof of the caller on every Connect RPC between the processes. Each caller signs a short-lived
 * HS256 JWT (jose) with a key all processes share (INTERNAL_AUTH_KEYS, from a Kubernetes Secret;
 * `npm start` generates one) and sends it in `x-passkeyauth-caller`. The token names the caller
 * (`iss`) and the one service it is for (`aud` = `passkeyauth-internal:<service>`), and lives at
 * most MAX_TOKEN_SECONDS (`iat`, `exp`, all required). A service refuses a call without a valid
 * token as `unauthenticated`, and a call its caller may not make (internalCallPolicy.ts) as
 * `permission_denied`; both are logged. The identity headers the gateway sets (project, user,
 * client address) are only believed on calls that carry a valid token.
 *
 * Rotation: INTERNAL_AUTH_KEYS is a comma-separated list; the first key signs, every key verifies.
 * During a rolling restart two adjacent configurations run side by side, so roll out `OLD,NEW`
 * (everyone still signs with OLD, and learns NEW), then `NEW,OLD` (signs with NEW, still accepts
 * OLD), then `NEW`: no call is refused at any step (services/runtime/test/internalAuthRotation.test.ts).
 */
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Logger } from 'pino';
import { HEADERS } from './wire.js';
import { callPolicyFor, INTERNAL_CALLERS, procedureOf, type InternalCaller, type InternalService } from './internalCallPolicy.js';

export const CALLER_HEADER = HEADERS.caller;
/** A token is valid this long; callers renew theirs at half of it. */
const TOKEN_SECONDS = 60;
/** The longest lifetime (exp - iat) a service accepts: a token minted for longer is refused. */
export const MAX_TOKEN_SECONDS = 120;
/** How far the clocks of two processes may disagree (exp in the past, iat in the future). */
export const CLOCK_SKEW_SECONDS = 10;
const MIN_KEY_BYTES = 32;
/**
 * A random 32-byte key has about 30 distinct byte values; fewer than this means a pattern
 * (`aaaa…`, `deadbeef…` repeated), not a random key.
 */
const MIN_DISTINCT_BYTES = 16;
const BASE64_PREFIX = 'base64:';
const HOW_TO_MAKE_A_KEY = 'make one with `openssl rand -hex 32`';

/** The audience of a token for `service`: a token for one service is refused by every other. */
export function audienceOf(service: InternalService): string {
  return `passkeyauth-internal:${service}`;
}

export interface InternalAuthKeys {
  /** Signs new tokens. */
  signing: Uint8Array;
  /** Every key a token may be signed with (the signing key first). */
  verifying: Uint8Array[];
}

/**
 * Parses INTERNAL_AUTH_KEYS: comma-separated keys of at least 32 random bytes, each written as
 * hex (an even number of digits, at least 64) or as `base64:` followed by standard base64. Anything
 * else (a passphrase, unprefixed base64, a repeated pattern) is refused with the reason, so a weak
 * key stops the process at start-up instead of protecting nothing.
 */
export function parseInternalAuthKeys(value: string): InternalAuthKeys {
  const keys = value
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '')
    .map((k, i) => parseKey(k, i + 1));
  if (keys.length === 0) throw new Error(`INTERNAL_AUTH_KEYS: no key given; ${HOW_TO_MAKE_A_KEY}`);
  return { signing: keys[0], verifying: keys };
}

function parseKey(text: string, n: number): Uint8Array {
  const problem = (what: string) => new Error(`INTERNAL_AUTH_KEYS: key ${n} ${what}; ${HOW_TO_MAKE_A_KEY}`);
  let bytes: Buffer;
  if (text.startsWith(BASE64_PREFIX)) {
    const b64 = text.slice(BASE64_PREFIX.length);
    if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw problem('is not valid base64 after "base64:"');
    bytes = Buffer.from(b64, 'base64');
  } else if (/^[0-9a-fA-F]+$/.test(text)) {
    if (text.length % 2 !== 0) throw problem(`has an odd number of hex digits (${text.length})`);
    bytes = Buffer.from(text, 'hex');
  } else {
    throw problem('is neither hex nor "base64:…" (a passphrase is not a key)');
  }
  if (bytes.length < MIN_KEY_BYTES) throw problem(`has ${bytes.length} bytes; at least ${MIN_KEY_BYTES} are needed`);
  const distinct = new Set(bytes).size;
  if (distinct < MIN_DISTINCT_BYTES) throw problem(`has only ${distinct} distinct byte values, a pattern rather than a random key`);
  return new Uint8Array(bytes);
}

/** The caller's current token for a target service. */
export type CallerTokens = (target: InternalService) => Promise<string>;

/** A caller's tokens, one per target service, each renewed before it runs out (one signature per half lifetime, not per call). */
export function internalTokenSource(keys: InternalAuthKeys, caller: InternalCaller, now: () => number = Date.now): CallerTokens {
  const current = new Map<InternalService, { token: string; renewAt: number }>();
  return async (target) => {
    const t = now();
    const held = current.get(target);
    if (held && held.renewAt > t) return held.token;
    const iat = Math.floor(t / 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(caller)
      .setAudience(audienceOf(target))
      .setIssuedAt(iat)
      .setExpirationTime(iat + TOKEN_SECONDS)
      .sign(keys.signing);
    current.set(target, { token, renewAt: t + (TOKEN_SECONDS * 1000) / 2 });
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

export interface InternalAuthOptions {
  keys: InternalAuthKeys;
  /** The service this server is: tokens must be for it, and its call policy applies. */
  service: InternalService;
  logger: Pick<Logger, 'warn'>;
  now?: () => number;
}

/**
 * Server side, outermost: refuses calls without a valid caller token (`unauthenticated`) and calls
 * the caller may not make (`permission_denied`). Verified tokens are remembered until they expire,
 * so a caller's token costs one HMAC check per half minute, not one per call; the permission is a
 * set lookup.
 */
export function internalAuthInterceptor(opts: InternalAuthOptions): Interceptor {
  const { keys, logger } = opts;
  const now = opts.now ?? Date.now;
  const audience = audienceOf(opts.service);
  const policy = callPolicyFor(opts.service);
  const verified = new Map<string, { until: number; caller: string }>();
  const MAX_REMEMBERED = 1000;
  /** The caller the token proves, or the reason it proves nothing. */
  const verify = async (token: string): Promise<{ caller: string } | { refused: string }> => {
    const t = now();
    const remembered = verified.get(token);
    if (remembered && remembered.until > t) return remembered;
    let reason = 'no key given';
    for (const key of keys.verifying) {
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          audience,
          issuer: [...INTERNAL_CALLERS],
          requiredClaims: ['iss', 'aud', 'iat', 'exp'],
          clockTolerance: CLOCK_SKEW_SECONDS,
          currentDate: new Date(t),
        }));
      } catch (err) {
        // jose's messages name the failed check (signature, "exp", "aud", …), never the token.
        reason = (err as Error).message;
        // A wrong signature: try the next key (during a rotation a token may be signed with either).
        // Anything else (malformed, or claims refused after the signature held) no key changes.
        if (err instanceof errors.JWSSignatureVerificationFailed) continue;
        return { refused: reason };
      }
      const lifetimeProblem = lifetimeProblemOf(payload, t);
      if (lifetimeProblem) return { refused: lifetimeProblem };
      if (verified.size >= MAX_REMEMBERED) verified.clear();
      const entry = { until: (payload.exp as number) * 1000, caller: payload.iss as string };
      verified.set(token, entry);
      return entry;
    }
    return { refused: reason };
  };
  return (next) => async (req) => {
    const token = req.header.get(CALLER_HEADER);
    const rpc = procedureOf(req.method);
    const proof = token ? await verify(token) : { refused: 'missing' };
    if ('refused' in proof) {
      logger.warn({ rpc, reason: proof.refused }, 'refused an internal call without a valid caller token');
      throw new ConnectError('the caller is not authenticated', Code.Unauthenticated);
    }
    if (!policy.allows(proof.caller, req.method)) {
      logger.warn({ rpc, caller: proof.caller }, 'refused an internal call the caller may not make');
      throw new ConnectError('the caller may not call this procedure', Code.PermissionDenied);
    }
    return next(req);
  };
}

/** Why a verified token's times are still unacceptable: minted too long-lived, or in the future. */
function lifetimeProblemOf(payload: JWTPayload, nowMs: number): string | null {
  const iat = payload.iat as number;
  const exp = payload.exp as number;
  if (exp - iat > MAX_TOKEN_SECONDS) return `lifetime ${exp - iat} s exceeds ${MAX_TOKEN_SECONDS} s`;
  if (exp <= iat) return '"exp" is not after "iat"';
  if (iat > Math.floor(nowMs / 1000) + CLOCK_SKEW_SECONDS) return '"iat" is in the future';
  return null;
}
