import type { CeremonyDomainDeps } from './deps.js';

/**
 * Removes everything the ceremony service keeps about a deleted user: passkeys, open ceremonies,
 * the WebAuthn user handle, the insights (client environments, events) and the reported auth events. Returns the number of
 * passkeys removed. Idempotent, so the connect service may retry it.
 */
export async function deleteUserCredentials(deps: Pick<CeremonyDomainDeps, 'credentials' | 'sessions' | 'webauthnUsers' | 'insights' | 'users' | 'authEvents'>, projectId: string, userId: string): Promise<number> {
  // The connect service calls this as it deletes the user: no ceremony may take it as existing.
  deps.users.forget?.(projectId, userId);
  const deleted = await deps.credentials.deleteForUser(projectId, userId);
  await deps.sessions.deleteForUser(projectId, userId);
  await deps.webauthnUsers.delete(projectId, userId);
  await deps.insights.forgetUser(projectId, userId);
  await deps.authEvents.deleteForUser(projectId, userId);
  return deleted;
}
