/** INDEX_HEADER auth-flows */
export { claimProvenIdentifier } from './domain/claimProvenIdentifier.js';
