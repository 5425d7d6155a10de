/**
 * auth-flows (sign-up and login, F1/F2, AuthFlowService): what other features may use. /v2/me
 * claims an identifier the user proved with a code the same way a sign-up does.
 * Composed in server.ts from handlers/authFlowService.ts with AuthFlowDeps (domain/authDeps.ts).
 */
export { claimProvenIdentifier } from './domain/claimProvenIdentifier.js';
