/**
 * POST /v2/users/{userID}/authEvents: the application reports a login, sign-up or passkey
 * addition it performed itself (password, email/phone code, email link, social, or a passkey
 * outside these ceremonies). The ceremony service keeps them beside the insights' own events,
 * bounded (store/authEvents.ts): per user the newest MAX_AUTH_EVENTS_PER_USER, each for the
 * project's event retention.
 *
 * How insights may use them: `listRecent` reads a user's newest events through the
 * project_user_created index, so a rule can ask "did this user just log in with a password or a
 * social account although a passkey was offered" (an append opportunity) or count recent failed
 * password logins, with one bounded query. No decision reads them yet; the analytics to come count
 * them from the same collection.
 */
import { invalidArgument, notFound } from '../../../runtime/errors.js';
import { newId } from '../../../runtime/ids.js';
import type { AuthEventMethod, AuthEventRecord, AuthEventStatus, AuthEventType } from '../store/authEvents.js';
import type { CeremonyDomainDeps } from './deps.js';

/** A user's newest events kept; older ones are removed as new ones arrive. */
export const MAX_AUTH_EVENTS_PER_USER = 100;

const EVENT_TYPES: readonly AuthEventType[] = ['sign_up', 'login', 'new_passkey_added'];
const METHODS: readonly AuthEventMethod[] = ['password', 'email_otp', 'email_link', 'phone_otp', 'passkey', 'social_github', 'social_google', 'social_microsoft'];
const STATUSES: readonly AuthEventStatus[] = ['success', 'failure'];

export interface RecordAuthEventInput {
  projectId: string;
  userId: string;
  username: string;
  eventType: string;
  method: string;
  status: string;
  client: { userAgent: string; remoteAddress: string };
}

const DAY_MS = 86_400_000;

export async function recordAuthEvent(deps: Pick<CeremonyDomainDeps, 'projects' | 'users' | 'authEvents' | 'now'>, input: RecordAuthEventInput): Promise<AuthEventRecord> {
  const eventType = oneOf('eventType', input.eventType, EVENT_TYPES);
  const method = oneOf('method', input.method, METHODS);
  const status = oneOf('status', input.status, STATUSES);
  const username = input.username.trim();
  if (username === '') throw invalidArgument('validation_error', 'username must not be blank', [{ field: 'username', message: 'must not be blank' }]);
  // A user of another project (or none) is not found, as on every user path.
  if (!(await deps.users.find(input.projectId, input.userId))) throw notFound('user_not_found', `user ${input.userId} does not exist`);
  const { eventRetentionDays } = await deps.projects.get(input.projectId);
  const createdAt = deps.now();
  const record: AuthEventRecord = {
    _id: newId('aev'),
    projectId: input.projectId,
    userId: input.userId,
    username,
    eventType,
    method,
    status,
    client: { userAgent: input.client.userAgent, remoteAddress: input.client.remoteAddress },
    createdAt,
    expiresAt: new Date(createdAt.getTime() + eventRetentionDays * DAY_MS),
  };
  await deps.authEvents.insert(record);
  // The bound: the insert and the trim are two writes; a crash between them leaves one surplus
  // event, which the next report of the user (or the TTL) removes.
  await deps.authEvents.trimUser(input.projectId, input.userId, MAX_AUTH_EVENTS_PER_USER);
  return record;
}

function oneOf<T extends string>(field: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (!found) throw invalidArgument('validation_error', `${field} must be one of ${allowed.join(', ')}, got "${value}"`, [{ field, message: `must be one of ${allowed.join(', ')}` }]);
  return found;
}
