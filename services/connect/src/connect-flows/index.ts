/** INDEX_HEADER connect-flows */
export { decideFlowAllowed } from './domain/decideFlowAllowed.js';
export { allPasskeys, managedPasskeyOf } from './domain/listManagedPasskeys.js';
export type { ManagedPasskey } from './domain/listManagedPasskeys.js';
export { connectPasskeyMessage } from './handlers/connectPasskeyMessage.js';
