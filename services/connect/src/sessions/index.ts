/** INDEX_HEADER sessions */
export { requireActiveRefreshToken } from './domain/requireActiveRefreshToken.js';
export { requireActiveSession } from './domain/requireActiveSession.js';
export { requireRecentAuthentication } from './domain/requireRecentAuthentication.js';
export { startSession } from './domain/startSession.js';
export type { SessionDeps } from './domain/sessionDeps.js';
export type { SessionStore } from './store/sessions.js';
