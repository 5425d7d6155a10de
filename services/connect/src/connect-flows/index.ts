/** INDEX_HEADER connect-flows */
export { decideFlowAllowed } from './domain/decideFlowAllowed.js';
export type { ConnectFlowDeps } from './domain/flowDeps.js';
export { allPasskeys, managedPasskeyOf } from './domain/listManagedPasskeys.js';
export type { ManagedPasskey } from './domain/listManagedPasskeys.js';
export { connectPasskeyMessage } from './handlers/connectPasskeyMessage.js';
