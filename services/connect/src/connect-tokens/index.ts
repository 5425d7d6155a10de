/**
 * connect-tokens (tokens an application's server issues for its signed-in user, ConnectTokenService):
 * what other features may use. The connect flows claim, consume and release them.
 * Composed in server.ts from handlers/connectTokenService.ts with ConnectTokenDeps.
 */
export { claimConnectToken, consumeConnectToken, releaseConnectToken, useRepeatableConnectToken } from './domain/useConnectToken.js';
export type { ConnectTokenStore } from './store/connectTokens.js';
