import { notFound } from '../../../runtime/errors.js';
import { badFilter, parseFilterEntries, parsePaging, parseSortParam, type SortOrder } from '../../../runtime/listQuery.js';
import type { CeremonyOperation, SessionRecord, SessionStatus } from '../store/sessions.js';
import type { CeremonyDomainDeps } from './deps.js';

export type PasskeyChallengeType = 'register' | 'authenticate';

/** One ceremony's WebAuthn challenge as the backend API shows it (reference passkeyChallenge). */
export interface PasskeyChallengeView {
  challengeId: string;
  type: PasskeyChallengeType;
  value: string;
  status: SessionStatus;
  created: Date;
  expires: Date;
}

export interface ListPasskeyChallengesInput {
  projectId: string;
  userId: string;
  /** `type:eq:register|authenticate` and `status:eq:pending|completed|consumed` entries. */
  filter: string[];
  /** "created:asc|desc" or "expires:asc|desc"; "" for newest first. */
  sort: string;
  page?: number;
  pageSize?: number;
}

export interface PasskeyChallengePage {
  challenges: PasskeyChallengeView[];
  page: number;
  totalPages: number;
  totalItems: number;
}

type SortField = 'createdAt' | 'challengeExpiresAt';
const SORT_FIELDS: Record<string, SortField> = { created: 'createdAt', expires: 'challengeExpiresAt' };
const FILTER_FIELDS: Record<string, 'type' | 'status'> = { type: 'type', status: 'status' };
/** A registration is an append; a login authenticates (a mediation names its user only when it finishes, so it is never a user's). */
const OPERATIONS: Record<PasskeyChallengeType, CeremonyOperation[]> = { register: ['append'], authenticate: ['login', 'mediation'] };
const STATUSES: readonly SessionStatus[] = ['pending', 'completed', 'consumed'];

/**
 * One page of the challenges of the user's ceremonies: the ceremony sessions the service stores
 * (pending until their expiry, used ones for a short while after; see store/sessions.ts).
 */
export async function listPasskeyChallenges(deps: Pick<CeremonyDomainDeps, 'users' | 'sessions'>, input: ListPasskeyChallengesInput): Promise<PasskeyChallengePage> {
  let operations: CeremonyOperation[] | undefined;
  let status: SessionStatus | undefined;
  for (const f of parseFilterEntries(input.filter, FILTER_FIELDS)) {
    if (f.field === 'type') {
      if (f.value !== 'register' && f.value !== 'authenticate') throw badFilter(`type must be register or authenticate, got "${f.value}"`);
      // Two type filters can only both hold for the same type.
      operations = operations && operations !== OPERATIONS[f.value] ? [] : OPERATIONS[f.value];
    } else {
      if (!(STATUSES as readonly string[]).includes(f.value)) throw badFilter(`status must be pending, completed or consumed, got "${f.value}"`);
      if (status !== undefined && status !== f.value) operations = [];
      status = f.value as SessionStatus;
    }
  }
  const sort: SortOrder<SortField> = parseSortParam(input.sort, SORT_FIELDS) ?? { field: 'createdAt', direction: 'desc' };
  const { page, pageSize } = parsePaging(input.page, input.pageSize);
  if (!(await deps.users.find(input.projectId, input.userId))) throw notFound('user_not_found', `user ${input.userId} does not exist`);
  const { items, total } = await deps.sessions.pageForUser({ projectId: input.projectId, userId: input.userId, operations, status, sort, skip: (page - 1) * pageSize, limit: pageSize });
  return { challenges: items.map(challengeView), page, totalPages: Math.ceil(total / pageSize), totalItems: total };
}

export function challengeView(s: SessionRecord): PasskeyChallengeView {
  return {
    challengeId: s._id,
    type: s.operation === 'append' ? 'register' : 'authenticate',
    value: s.challenge,
    status: s.status ?? 'pending',
    created: s.createdAt,
    // Sessions stored before challengeExpiresAt existed are all pending, so expiresAt is still their challenge's.
    expires: s.challengeExpiresAt ?? s.expiresAt,
  };
}
