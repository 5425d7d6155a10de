import { notFound } from '../../../runtime/errors.js';
import { badFilter, parseFilterEntries, parsePaging, parseSortParam, type SortOrder } from '../../../runtime/listQuery.js';
import type { PasskeyEventEntry } from '../store/userInsights.js';
import type { CeremonyDomainDeps } from './deps.js';
import { PASSKEY_EVENT_TYPES } from './insights/passkeyEventEffects.js';

export interface ListPasskeyEventsInput {
  projectId: string;
  userId: string;
  /** `eventType:eq:<type>` entries. */
  filter: string[];
  /** "created:asc|desc" or "expires:asc|desc"; "" for newest first. */
  sort: string;
  page?: number;
  pageSize?: number;
}

export interface PasskeyEventPage {
  events: PasskeyEventEntry[];
  page: number;
  totalPages: number;
  totalItems: number;
}

type SortField = 'createdAt' | 'expiresAt';
const SORT_FIELDS: Record<string, SortField> = { created: 'createdAt', expires: 'expiresAt' };
const FILTER_FIELDS: Record<string, 'eventType'> = { eventType: 'eventType' };

/**
 * One page of the user's passkey events that still count (expired ones are as good as gone; the
 * store drops them when the user's cap is reached). The user's events are few (capped per user)
 * and read with one point lookup, so filtering and paging happen here.
 */
export async function listPasskeyEvents(deps: Pick<CeremonyDomainDeps, 'users' | 'passkeyEvents' | 'now'>, input: ListPasskeyEventsInput): Promise<PasskeyEventPage> {
  const types = parseFilterEntries(input.filter, FILTER_FIELDS).map((f) => {
    if (!(PASSKEY_EVENT_TYPES as readonly string[]).includes(f.value)) throw badFilter(`eventType must be one of ${PASSKEY_EVENT_TYPES.join(', ')}, got "${f.value}"`);
    return f.value;
  });
  const sort: SortOrder<SortField> = parseSortParam(input.sort, SORT_FIELDS) ?? { field: 'createdAt', direction: 'desc' };
  const { page, pageSize } = parsePaging(input.page, input.pageSize);
  if (!(await deps.users.find(input.projectId, input.userId))) throw notFound('user_not_found', `user ${input.userId} does not exist`);
  const now = deps.now().getTime();
  const sign = sort.direction === 'asc' ? 1 : -1;
  const matching = (await deps.passkeyEvents.passkeyEvents(input.projectId, input.userId))
    .filter((e) => e.expiresAt.getTime() > now && types.every((t) => e.eventType === t))
    .sort((a, b) => sign * (a[sort.field].getTime() - b[sort.field].getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
  return {
    events: matching.slice((page - 1) * pageSize, page * pageSize),
    page,
    totalPages: Math.ceil(matching.length / pageSize),
    totalItems: matching.length,
  };
}
