/**
 * How the demo's server talks to the auth service: the backend API with HTTP Basic
 * (project ID + API secret, which never leave this server), and the project's JWKS for verifying
 * the tokens pages hand over (session tokens, signedPasskeyData) offline with jose.
 */
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';

export interface DemoProject {
  projectID: string;
  apiSecret: string;
  frontendApiUrl: string;
  backendApiUrl: string;
}

/** A non-2xx answer of the backend API, with its errorRsp `error.type` and `error.details`. */
export class BackendApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly details: string,
  ) {
    super(`backend API answered ${status} ${type}: ${details}`);
  }
}

export type BackendCall = <T = Record<string, any>>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown) => Promise<T>;

const trimSlash = (url: string) => url.replace(/\/+$/, '');

export function backendApi(project: DemoProject): BackendCall {
  const authorization = `Basic ${Buffer.from(`${project.projectID}:${project.apiSecret}`).toString('base64')}`;
  const base = trimSlash(project.backendApiUrl);
  return async (method, path, body) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    const json = text ? (JSON.parse(text) as Record<string, any>) : {};
    if (!res.ok) throw new BackendApiError(res.status, json.error?.type ?? `http_${res.status}`, json.error?.details || json.message || res.statusText);
    return json as any;
  };
}

/** Why a token was refused, in words for the page. */
export class TokenError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface TokenVerifier {
  /** A session token (`kind: "session"`) from the sign-up/login flow or a connect login. */
  session(token: string): Promise<JWTPayload>;
  /** signedPasskeyData (`kind: "passkey_data"`) from a connect login or B5/B7. */
  passkeyData(token: string): Promise<JWTPayload>;
}

/**
 * Verifies ES256 JWTs against `{frontendApiUrl}/.well-known/jwks` (the project named by
 * X-Corbado-ProjectID): signature, `iss` = the project's frontend URL, `aud` = the project ID,
 * expiry, and the token's `kind`. jose caches the key set and refetches it for an unknown `kid`.
 */
export function tokenVerifier(project: DemoProject): TokenVerifier {
  const jwks = createRemoteJWKSet(new URL(`${trimSlash(project.frontendApiUrl)}/.well-known/jwks`), {
    headers: { 'X-Corbado-ProjectID': project.projectID },
    timeoutDuration: 10_000,
  });
  const verify = async (token: string, kind: string): Promise<JWTPayload> => {
    if (!token) throw new TokenError('token_missing', 'no token was sent');
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer: project.frontendApiUrl, audience: project.projectID, algorithms: ['ES256'] });
      if (payload.kind !== kind) throw new TokenError('wrong_token_kind', `expected a ${kind} token, got ${String(payload.kind ?? 'a token without kind')}`);
      return payload;
    } catch (err) {
      if (err instanceof TokenError) throw err;
      // Not the token's fault: the key set could not be fetched in time.
      if (err instanceof joseErrors.JWKSTimeout) throw new Error(`the JWKS at ${project.frontendApiUrl} did not answer in time`, { cause: err });
      if (err instanceof joseErrors.JWTExpired) throw new TokenError('token_expired', 'the token has expired');
      if (err instanceof joseErrors.JWTClaimValidationFailed) throw new TokenError('invalid_token', `the token's ${err.claim} claim is wrong (another project's token?)`);
      if (err instanceof joseErrors.JOSEError) throw new TokenError('invalid_token', `the token is not valid: ${err.message}`);
      throw err;
    }
  };
  return { session: (t) => verify(t, 'session'), passkeyData: (t) => verify(t, 'passkey_data') };
}
