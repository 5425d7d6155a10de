import { failedPrecondition, invalidArgument, notFound } from '../../../runtime/errors.js';
import { newId } from '../../../runtime/ids.js';
import type { PasskeyEventEntry } from '../store/userInsights.js';
import { DEFAULT_EVENT_RETENTION_DAYS, type CeremonyDomainDeps } from './deps.js';
import { PASSKEY_EVENT_TYPES } from './insights/passkeyEventEffects.js';

export interface CreatePasskeyEventInput {
  projectId: string;
  userId: string;
  eventType: string;
  /** Unix seconds; absent: the event lasts the project's event retention. */
  expires?: number;
  processId: string;
  clientEnvId: string;
  credentialId: string;
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Records an application's passkey event for a user (backend API PasskeyEventCreate). From now
 * until it expires it changes the user's next decisions (see insights/passkeyEventEffects.ts).
 * A user that does not exist here is not_found `user_not_found`; a user holding the per-user cap
 * of unexpired events is refused (`too_many_passkey_events`), never silently trimmed, so a flood of
 * reports cannot push a blacklisting out.
 */
export async function createPasskeyEvent(deps: Pick<CeremonyDomainDeps, 'users' | 'projects' | 'passkeyEvents' | 'now'>, input: CreatePasskeyEventInput): Promise<PasskeyEventEntry> {
  if (!(PASSKEY_EVENT_TYPES as readonly string[]).includes(input.eventType)) {
    throw invalidArgument('validation_error', `eventType ${JSON.stringify(input.eventType)} is not a passkey event type`, [
      { field: 'eventType', message: `must be one of ${PASSKEY_EVENT_TYPES.join(', ')}` },
    ]);
  }
  const now = deps.now();
  // An event that has already expired would never count: refusing it tells the caller its clock or unit is off.
  if (input.expires !== undefined && !(Number.isSafeInteger(input.expires) && input.expires * 1000 > now.getTime())) {
    throw invalidArgument('validation_error', `expires must be a future time in unix seconds, got ${input.expires}`, [{ field: 'expires', message: 'must be in the future (unix seconds)' }]);
  }
  if (!(await deps.users.find(input.projectId, input.userId))) throw notFound('user_not_found', `user ${input.userId} does not exist`);
  const expiresAt = input.expires !== undefined ? new Date(input.expires * 1000) : new Date(now.getTime() + (await retentionDays(deps, input.projectId)) * DAY_MS);
  const event: PasskeyEventEntry = {
    id: newId('pke'),
    eventType: input.eventType,
    ...(input.processId ? { processId: input.processId } : {}),
    ...(input.clientEnvId ? { clientEnvId: input.clientEnvId } : {}),
    ...(input.credentialId ? { credentialId: input.credentialId } : {}),
    ...(input.expires !== undefined ? { expires: input.expires } : {}),
    expiresAt,
    createdAt: now,
  };
  if (!(await deps.passkeyEvents.addPasskeyEvent(input.projectId, input.userId, event, now))) {
    throw failedPrecondition('too_many_passkey_events', `user ${input.userId} has the most unexpired passkey events a user may have; delete some or let them expire`);
  }
  return event;
}

/** The project's event retention; an older connect service answers 0, which means the default. */
async function retentionDays(deps: Pick<CeremonyDomainDeps, 'projects'>, projectId: string): Promise<number> {
  const days = (await deps.projects.get(projectId)).eventRetentionDays;
  return days > 0 ? days : DEFAULT_EVENT_RETENTION_DAYS;
}
