/**
 * The demo app's own server API (`/api/*`): what an application's backend does around the auth
 * service. Pages call these with JSON; errors are `{error: {code, message}}` with an HTTP status.
 *
 * - GET  /api/session            verify the session token (Authorization: Bearer) against the JWKS
 *                                 (the self-service project's; every other route uses the connect project);
 *                                 {userID, name, email (proven only, else null), emailVerified, identifiers [{type, value, status}]}
 * - POST /api/password/register  the app's own login (in memory, scrypt), for the connect page
 * - POST /api/password/login, POST /api/password/logout, GET /api/password/me ({email}, null when signed out)
 * - POST /api/connect-token      create a connect token for the signed-in app user (backend API)
 * - POST /api/connect/verify     verify signedPasskeyData from a connect passkey login
 * - POST /api/backend/{append,login,mediation}/{start,finish}   B2–B7 run by this server
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BackendApiError, TokenError, type BackendCall, type TokenVerifier } from './backendApi.js';
import { normalizeEmail, PasswordError, type PasswordUsers } from './passwords.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What one browser did on this server: the app user signed in by password, the backend page's user and ceremonies. */
export interface AppSession {
  id: string;
  appUser?: string;
  backendUser?: { userID: string; username: string };
  /** processID of each started backend ceremony, kept here so the finish cannot name another. */
  pending: { append?: string; login?: string; mediation?: string };
}

const COOKIE = 'demo_session';
const MAX_SESSIONS = 10_000;

/** Cookie sessions, in memory like everything else in the demo. */
export class AppSessions {
  private readonly sessions = new Map<string, AppSession>();

  find(req: IncomingMessage): AppSession | null {
    const id = cookie(req, COOKIE);
    return (id && this.sessions.get(id)) || null;
  }

  findOrCreate(req: IncomingMessage, res: ServerResponse): AppSession {
    const found = this.find(req);
    if (found) return found;
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    const session: AppSession = { id: randomBytes(24).toString('base64url'), pending: {} };
    this.sessions.set(session.id, session);
    res.setHeader('set-cookie', `${COOKIE}=${session.id}; Path=/; HttpOnly; SameSite=Strict`);
    return session;
  }
}

function cookie(req: IncomingMessage, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return null;
}

/** One project as this server uses it: its backend API and its token verification. */
export interface ProjectApi {
  backend: BackendCall;
  tokens: TokenVerifier;
}

export interface RouteDeps {
  /** The self-service project (sign-up/login pages): only its session tokens are checked here. */
  selfService: ProjectApi;
  /** The connect project: connect tokens, signedPasskeyData, the backend-API ceremonies. */
  connect: ProjectApi;
  users: PasswordUsers;
  sessions: AppSessions;
}

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  body: Record<string, any>;
}

export type Route = (ctx: RouteContext) => Promise<unknown>;

const CONNECT_TOKEN_TYPES = ['passkey-append', 'passkey-list', 'passkey-delete'];

export function apiRoutes(deps: RouteDeps): Record<string, Route> {
  const { users, sessions } = deps;
  // The app's own users (password login, connect, backend API) live in the connect project.
  const { backend, tokens } = deps.connect;

  const signedInAppUser = (ctx: RouteContext): string => {
    const email = sessions.find(ctx.req)?.appUser;
    if (!email) throw new HttpError(401, 'not_signed_in', 'Sign in with your password first.');
    return email;
  };

  return {
    /** The server-side check of a session token: what an app's backend does on every request. */
    'GET /api/session': async ({ req }) => {
      const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const claims = await verifying(() => deps.selfService.tokens.session(token));
      // Only what the token states as proven: `email` is present only for a verified address
      // (email_verified says whether one the user typed is still unproven), and every identifier
      // carries its status, so the page never shows an unproven address as the user's.
      return {
        userID: claims.sub,
        name: claims.name,
        email: typeof claims.email === 'string' ? claims.email : null,
        emailVerified: claims.email_verified === true,
        identifiers: claims.identifiers ?? [],
      };
    },

    'POST /api/password/register': async (ctx) => {
      const { email } = await users.register(ctx.body.email, ctx.body.password);
      sessions.findOrCreate(ctx.req, ctx.res).appUser = email;
      return { email };
    },

    'POST /api/password/login': async (ctx) => {
      const { email } = await users.login(ctx.body.email, ctx.body.password);
      sessions.findOrCreate(ctx.req, ctx.res).appUser = email;
      return { email };
    },

    'POST /api/password/logout': async ({ req }) => {
      const session = sessions.find(req);
      if (session) delete session.appUser;
      return {};
    },

    /** The signed-in app user, or null. */
    'GET /api/password/me': async ({ req }) => ({ email: sessions.find(req)?.appUser ?? null }),

    /** A connect token for the signed-in app user: the server vouches for the user's identifier. */
    'POST /api/connect-token': async (ctx) => {
      const email = signedInAppUser(ctx);
      const type = ctx.body.type;
      if (!CONNECT_TOKEN_TYPES.includes(type)) throw new HttpError(400, 'type_invalid', `type must be one of ${CONNECT_TOKEN_TYPES.join(', ')}`);
      const data = type === 'passkey-append' ? { identifier: email, displayName: email } : { identifier: email };
      const token = await backend<{ secret: string }>('POST', '/v2/connectTokens', { type, data, maxLifetimeInSeconds: 300 });
      return { secret: token.secret };
    },

    /** After a connect passkey login: check signedPasskeyData, then sign in the app user it names. */
    'POST /api/connect/verify': async (ctx) => {
      const token = typeof ctx.body.signedPasskeyData === 'string' ? ctx.body.signedPasskeyData : '';
      const claims = await verifying(() => tokens.passkeyData(token));
      const username = String(claims.username ?? '');
      if (users.has(username)) sessions.findOrCreate(ctx.req, ctx.res).appUser = normalizeEmail(username);
      return { userID: String(claims.userID ?? claims.sub), username };
    },

    // B2/B3: the server creates a user, asks for creation options, and finishes with the page's answer.
    'POST /api/backend/append/start': async (ctx) => {
      const session = sessions.findOrCreate(ctx.req, ctx.res);
      const suffix = randomBytes(3).toString('hex');
      const username = `demo-${suffix}`;
      const user = await backend<{ userID: string }>('POST', '/v2/users', { fullName: `Backend demo user ${suffix}`, status: 'active' });
      await backend('POST', `/v2/users/${user.userID}/identifiers`, { identifierType: 'username', identifierValue: username, status: 'verified' });
      session.backendUser = { userID: user.userID, username };
      const processID = (session.pending.append = newProcessID());
      const started = await backend('POST', '/v2/passkey/append/start', {
        userID: user.userID,
        processID,
        username,
        clientInformation: backendClientInformation(ctx),
        passkeyIntelFlags: {},
        situation: 'default',
      });
      return { userID: user.userID, username, appendAllow: started.appendAllow, attestationOptions: started.attestationOptions, decisionInsights: started.decisionInsights };
    },

    'POST /api/backend/append/finish': async (ctx) => {
      const session = sessions.findOrCreate(ctx.req, ctx.res);
      const processID = session.pending.append;
      if (!processID || !session.backendUser) throw new HttpError(409, 'not_started', 'Start the append first.');
      const finished = await backend('POST', '/v2/passkey/append/finish', {
        userID: session.backendUser.userID,
        processID,
        attestationResponse: ceremonyResponse(ctx.body.attestationResponse),
        trackingID: newProcessID(),
        clientInformation: backendClientInformation(ctx),
      });
      delete session.pending.append;
      return { passkeyData: finished.passkeyData };
    },

    // B4/B5: login with a known user (the one this browser created above).
    'POST /api/backend/login/start': async (ctx) => {
      const session = sessions.findOrCreate(ctx.req, ctx.res);
      if (!session.backendUser) throw new HttpError(409, 'no_demo_user', 'Create a demo user with a passkey first (button above).');
      const processID = (session.pending.login = newProcessID());
      const started = await backend('POST', '/v2/passkey/login/start', {
        userID: session.backendUser.userID,
        processID,
        clientInformation: backendClientInformation(ctx),
        crossDeviceAuthenticationStrategy: 'standard',
      });
      return { userID: session.backendUser.userID, loginAllow: started.loginAllow, assertionOptions: started.assertionOptions, decisionInsights: started.decisionInsights };
    },

    'POST /api/backend/login/finish': async (ctx) => {
      const session = sessions.findOrCreate(ctx.req, ctx.res);
      const processID = session.pending.login;
      if (!processID || !session.backendUser) throw new HttpError(409, 'not_started', 'Start the login first.');
      const finished = await backend('POST', '/v2/passkey/login/finish', {
        userID: session.backendUser.userID,
        processID,
        assertionResponse: ceremonyResponse(ctx.body.assertionResponse),
        trackingID: newProcessID(),
        clientInformation: backendClientInformation(ctx),
        signPasskeyData: true,
      });
      delete session.pending.login;
      const verified = await verifying(() => tokens.passkeyData(finished.signedPasskeyData));
      return { passkeyData: finished.passkeyData, signedPasskeyDataVerified: { userID: verified.userID, username: verified.username } };
    },

    // B6/B7: no user is named up front; the passkey the browser picks tells who it is.
    'POST /api/backend/mediation/start': async (ctx) => {
      const session = sessions.findOrCreate(ctx.req, ctx.res);
      const processID = (session.pending.mediation = newProcessID());
      const started = await backend('POST', '/v2/passkey/mediation/start', { clientInformation: backendClientInformation(ctx), processID });
      return { loginAllow: started.loginAllow, assertionOptions: started.assertionOptions };
    },

    'POST /api/backend/mediation/finish': async (ctx) => {
      const session = sessions.findOrCreate(ctx.req, ctx.res);
      const processID = session.pending.mediation;
      if (!processID) throw new HttpError(409, 'not_started', 'Start the login first.');
      const finished = await backend('POST', '/v2/passkey/mediation/finish', {
        assertionResponse: ceremonyResponse(ctx.body.assertionResponse),
        clientInformation: backendClientInformation(ctx),
        processID,
        trackingID: newProcessID(),
      });
      delete session.pending.mediation;
      if (finished.error?.type === 'credentialDeleted') {
        throw new HttpError(404, 'credential_deleted', 'This passkey no longer exists on the server (deleted, or its user was). Your device may still offer it.');
      }
      return { passkeyData: finished.passkeyData };
    },
  };
}

/** Token checks answer 401 with the reason; anything else (JWKS unreachable) stays a server error. */
async function verifying<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    if (err instanceof TokenError) throw new HttpError(401, err.code, `The token was refused: ${err.message}.`);
    throw err;
  }
}

/** The backend variant of clientInformation: the page reports its capabilities, the server adds what it saw. */
function backendClientInformation({ req, body }: RouteContext) {
  const page = (body.clientInformation ?? {}) as Record<string, unknown>;
  return {
    remoteAddress: req.socket.remoteAddress ?? '127.0.0.1',
    userAgent: req.headers['user-agent'] || 'unknown',
    userVerifyingPlatformAuthenticatorAvailable: page.userVerifyingPlatformAuthenticatorAvailable === true,
    conditionalMediationAvailable: page.conditionalMediationAvailable === true,
  };
}

/** B3/B5/B7 take the PublicKeyCredential as a JSON string. */
function ceremonyResponse(value: unknown): string {
  if (value === null || typeof value !== 'object') throw new HttpError(400, 'response_missing', 'The browser sent no passkey response.');
  return JSON.stringify(value);
}

const newProcessID = () => `demo-${randomBytes(12).toString('base64url')}`;

/** Maps what a route threw to the demo's error answer. */
export function errorAnswer(err: unknown): { status: number; code: string; message: string } {
  if (err instanceof HttpError || err instanceof PasswordError) return { status: err.status, code: err.code, message: err.message };
  if (err instanceof BackendApiError) {
    // The auth service refused: pass its reason on (4xx); its outages are this server's 502.
    return err.status < 500 ? { status: err.status, code: err.type, message: err.details } : { status: 502, code: err.type, message: `The auth service failed: ${err.details}` };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  // fetch() fails with a TypeError (refused, reset) or a TimeoutError (AbortSignal.timeout).
  if ((e instanceof TypeError && e.message === 'fetch failed') || e.name === 'TimeoutError' || /JWKS/.test(e.message)) {
    const cause = e.cause instanceof Error ? ` (${e.cause.message})` : '';
    return { status: 502, code: 'auth_service_unreachable', message: `The auth service could not be reached: ${e.message}${cause}. Is the local stack running?` };
  }
  return { status: 500, code: 'internal_error', message: 'The demo server failed; see its log.' };
}
