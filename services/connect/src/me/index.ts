/**
 * me (the signed-in user's endpoints, /v2/me/*, MeService): nothing; no feature builds on it (it
 * sits on top: sessions, users, connect-flows, auth-flows). Composed in server.ts from
 * handlers/meService.ts with MeDeps (domain/meDeps.ts).
 */
export {};
