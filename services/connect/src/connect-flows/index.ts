/**
 * connect-flows (Corbado Connect login, append and manage, F5–F10, ConnectFlowService): what other
 * features may use. /v2/me reuses the connect flows' rules for appending and listing passkeys.
 * Composed in server.ts from handlers/connectFlowService.ts with ConnectFlowDeps (domain/flowDeps.ts).
 */
export { decideFlowAllowed } from './domain/decideFlowAllowed.js';
export { allPasskeys, managedPasskeyOf } from './domain/listManagedPasskeys.js';
export type { ManagedPasskey } from './domain/listManagedPasskeys.js';
export { connectPasskeyMessage } from './handlers/connectPasskeyMessage.js';
