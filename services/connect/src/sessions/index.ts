/**
 * sessions (refresh tokens and session tokens, SessionService): what other features may use:
 * starting a session (sign-up/login completion, connect login) and checking one (/v2/me).
 * Composed in server.ts from handlers/sessionService.ts with SessionDeps.
 */
export { requireActiveRefreshToken } from './domain/requireActiveRefreshToken.js';
export { requireActiveSession } from './domain/requireActiveSession.js';
export { requireRecentAuthentication } from './domain/requireRecentAuthentication.js';
export { startSession, type KnownSessionFacts } from './domain/startSession.js';
export { confirmSessionEvent, userSessionEnder } from './domain/revokeSession.js';
export type { SessionDeps } from './domain/sessionDeps.js';
export type { SessionStore } from './store/sessions.js';
