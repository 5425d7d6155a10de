/**
 * The signed-in session in the browser: the short-lived session token (`shortSession`, a JWT for
 * /v2/me and for this demo's server) and the refresh token (`longSession`) in sessionStorage. The
 * session token is renewed with POST /v2/me/refresh shortly before it expires; the refresh token
 * rotates on every use, so only one refresh may run at a time.
 */
import { decodeJwt } from 'jose';
import { ApiError, frontendApi } from './common.js';

const SHORT = 'shortSession';
const LONG = 'longSession';
/** Renew when less than this is left of the session token. */
const REFRESH_BEFORE_SECONDS = 60;

export function saveSession(shortSession: string, longSession: string): void {
  sessionStorage.setItem(SHORT, shortSession);
  sessionStorage.setItem(LONG, longSession);
}

export function clearSession(): void {
  sessionStorage.removeItem(SHORT);
  sessionStorage.removeItem(LONG);
}

export function hasSession(): boolean {
  return Boolean(sessionStorage.getItem(SHORT));
}

/** Seconds until the session token expires (negative once it has). */
export function secondsLeft(token: string): number {
  const exp = decodeJwt(token).exp ?? 0;
  return exp - Date.now() / 1000;
}

let refreshing: Promise<string> | null = null;

/** Exchanges the refresh token for a new pair; throws ApiError when the session is over. */
export function refreshSession(): Promise<string> {
  refreshing ??= (async () => {
    const longSession = sessionStorage.getItem(LONG);
    if (!longSession) throw new ApiError(401, 'session_ended', 'you are not signed in');
    const r = await frontendApi<{ shortSession: string; longSession: string }>('/v2/me/refresh', { bearer: longSession, body: {} });
    saveSession(r.shortSession, r.longSession);
    return r.shortSession;
  })().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** A session token with at least a minute left, renewed first if needed. */
export async function sessionToken(): Promise<string> {
  const token = sessionStorage.getItem(SHORT);
  if (!token) throw new ApiError(401, 'session_ended', 'you are not signed in');
  return secondsLeft(token) > REFRESH_BEFORE_SECONDS ? token : refreshSession();
}

/** A /v2/me call with the session token; one refresh and retry when the token was refused anyway. */
export async function meApi<T = Record<string, any>>(path: string, opts: { method?: string; body?: unknown } = {}): Promise<T> {
  try {
    return await frontendApi<T>(path, { ...opts, bearer: await sessionToken() });
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 401 || err.type === 'session_ended') throw err;
    return frontendApi<T>(path, { ...opts, bearer: await refreshSession() });
  }
}
