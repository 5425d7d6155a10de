import type { CeremonyDomainDeps } from './deps.js';

/**
 * The user's WebAuthn user handle (the `user.id` its passkeys carry) as base64url, or "" when the
 * user has none yet. Only reads: the handle is created by the first append (startAppend), so
 * asking never gives a user a handle its passkeys do not have.
 */
export async function getUserHandle(deps: Pick<CeremonyDomainDeps, 'webauthnUsers'>, projectId: string, userId: string): Promise<string> {
  const handle = await deps.webauthnUsers.find(projectId, userId);
  return handle ? Buffer.from(handle).toString('base64url') : '';
}
