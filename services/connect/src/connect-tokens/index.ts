/** INDEX_HEADER connect-tokens */
export { claimConnectToken, consumeConnectToken, releaseConnectToken, useRepeatableConnectToken } from './domain/useConnectToken.js';
export type { ConnectTokenStore } from './store/connectTokens.js';
