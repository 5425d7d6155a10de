/**
 * The social account lists: the project's (GET /v2/socialAccounts, with `paging`) and one user's
 * (GET /v2/users/{userID}/socialAccounts, a bare array in the reference). Both take the reference's
 * list parameters: `filter[]` entries `field:eq:value`, `sort` as `field:asc|desc`, page, pageSize
 * (services/runtime/listQuery.ts); anything else is a 400 validation_error naming the parameter.
 */
import { badFilter, parseFilterEntries, parsePaging, parseSortParam } from '../../../../runtime/listQuery.js';
import type { SocialAccountField, SocialAccountListQuery, SocialAccountRecord, SocialAccountSortField } from '../store/socialAccounts.js';
import { SOCIAL_PROVIDER_TYPES } from './createSocialAccount.js';
import { getUser } from './getUser.js';
import type { UserDeps } from './userDeps.js';

export interface ListQueryInput {
  filter: readonly string[];
  sort: string;
  page?: number;
  pageSize?: number;
}

export interface SocialAccountList {
  items: SocialAccountRecord[];
  paging: { page: number; totalPages: number; totalItems: number };
}

/** The API's filter and sort names and the stored fields they name. */
const FIELDS: Record<string, SocialAccountField> = {
  providerType: 'providerType',
  identifierValue: 'identifierValue',
  foreignID: 'foreignId',
  userID: 'userId',
};
const SORT_FIELDS: Record<string, SocialAccountSortField> = { ...FIELDS, created: 'createdAt' };
/** One user's list is already of one user: userID is no filter or sort there. */
const { userID: _userFilter, ...USER_FIELDS } = FIELDS;
const { userID: _userSort, ...USER_SORT_FIELDS } = SORT_FIELDS;

/** One page of the project's social accounts matching the filters. */
export async function listSocialAccounts(deps: Pick<UserDeps, 'socialAccounts'>, input: ListQueryInput & { projectId: string }): Promise<SocialAccountList> {
  const query = parseQuery(input, FIELDS, SORT_FIELDS);
  const { items, total } = await deps.socialAccounts.list(input.projectId, query);
  return { items, paging: { page: query.page, totalPages: Math.ceil(total / query.pageSize), totalItems: total } };
}

/** One page of a user's social accounts; a user of another project (or none) is not_found `user_not_found`. */
export async function listUserSocialAccounts(
  deps: Pick<UserDeps, 'users' | 'socialAccounts'>,
  input: ListQueryInput & { projectId: string; userId: string },
): Promise<SocialAccountRecord[]> {
  const query = parseQuery(input, USER_FIELDS, USER_SORT_FIELDS);
  await getUser(deps, input.projectId, input.userId);
  query.conditions.push({ field: 'userId', value: input.userId });
  return (await deps.socialAccounts.list(input.projectId, query)).items;
}

function parseQuery(input: ListQueryInput, fields: Record<string, SocialAccountField>, sortFields: Record<string, SocialAccountSortField>): SocialAccountListQuery {
  const conditions = parseFilterEntries(input.filter, fields).map(({ field, value }) => ({ field, value: checkFilterValue(field, value) }));
  return { conditions, sort: parseSortParam(input.sort, sortFields), ...parsePaging(input.page, input.pageSize) };
}

/**
 * providerType must be a provider; userID is accepted with or without its `usr-` prefix (the
 * published Node SDK sends the bare number); values are compared trimmed, as they are stored.
 */
function checkFilterValue(field: SocialAccountField, value: string): string {
  const v = value.trim();
  if (field === 'providerType' && !SOCIAL_PROVIDER_TYPES.some((t) => t === v)) throw badFilter(`providerType must be one of ${SOCIAL_PROVIDER_TYPES.join(', ')}, got "${value}"`);
  if (field === 'userId') {
    if (/^[0-9]{1,30}$/.test(v)) return `usr-${v}`;
    if (!/^usr-[0-9]{1,30}$/.test(v)) throw badFilter(`userID must be "usr-<number>" or "<number>", got "${value}"`);
  }
  return v;
}
