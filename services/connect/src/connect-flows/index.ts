/**
 * connect-flows (Corbado Connect login, append and manage, F5–F10, ConnectFlowService): what other
 * features may use. /v2/me decides a passkey append by the connect flows' rule.
 * Composed in server.ts from handlers/connectFlowService.ts with ConnectFlowDeps (domain/flowDeps.ts).
 */
export { decideFlowAllowed } from './domain/decideFlowAllowed.js';
