/**
 * The reference API's list of connect tokens: `filter[]` entries `field:eq:value` on tokenType,
 * connectTokenStatus and identifier, `sort` as `created|expires:asc|desc`, and 1-based paging
 * (parsed as listQuery.ts does for identifiers).
 */
import { invalidArgument } from '../../../../runtime/errors.js';
import type { ConnectTokenCondition, ConnectTokenField, ConnectTokenListQuery, ConnectTokenRecord, ConnectTokenSort, ConnectTokenSortField } from '../store/connectTokens.js';
import type { ConnectTokenDeps } from './connectTokenDeps.js';
import { checkConnectTokenStatus, checkConnectTokenType } from './connectTokenRules.js';
import { parsePaging } from '../../users/domain/listQuery.js';

export interface ConnectTokenList {
  items: ConnectTokenRecord[];
  paging: { page: number; totalPages: number; totalItems: number };
}

const FILTER_FIELDS: Record<string, ConnectTokenField> = {
  tokenType: 'type',
  connectTokenStatus: 'status',
  identifier: 'identifier',
};
const SORT_FIELDS: Record<string, ConnectTokenSortField> = { created: 'createdAt', expires: 'expiresAt' };

function badFilter(message: string) {
  return invalidArgument('validation_error', `filter ${message}`, [{ field: 'filter', message }]);
}

function badSort(message: string) {
  return invalidArgument('validation_error', `sort ${message}`, [{ field: 'sort', message }]);
}

/**
 * Parses `field:eq:value` filters; the value may itself contain ":" (only the first two separate).
 * identifier is compared trimmed, as it was stored; type and status values must be ones that exist.
 */
export function parseConnectTokenFilters(filters: readonly string[]): ConnectTokenCondition[] {
  return filters.map((raw): ConnectTokenCondition => {
    const first = raw.indexOf(':');
    const second = first < 0 ? -1 : raw.indexOf(':', first + 1);
    if (second < 0) throw badFilter(`entries must look like "field:eq:value"`);
    const name = raw.slice(0, first);
    const op = raw.slice(first + 1, second);
    const value = raw.slice(second + 1);
    const field = Object.hasOwn(FILTER_FIELDS, name) ? FILTER_FIELDS[name] : undefined;
    if (!field) throw badFilter(`field must be one of ${Object.keys(FILTER_FIELDS).join(', ')}, got "${name}"`);
    if (op !== 'eq') throw badFilter(`operator must be "eq", got "${op}" for ${name}`);
    try {
      switch (field) {
        case 'type':
          return { field, value: checkConnectTokenType(value, name) };
        case 'status':
          return { field, value: checkConnectTokenStatus(value, name) };
        case 'identifier':
          return { field, value: value.trim() };
      }
    } catch (err) {
      throw badFilter((err as Error).message);
    }
  });
}

/** `created|expires:asc|desc`; the empty string (SDKs send `sort=`) means creation order. */
export function parseConnectTokenSort(sort: string): ConnectTokenSort | null {
  if (sort.trim() === '') return null;
  const [name, direction, ...rest] = sort.trim().split(':');
  const field = Object.hasOwn(SORT_FIELDS, name) ? SORT_FIELDS[name] : undefined;
  if (!field) throw badSort(`field must be one of ${Object.keys(SORT_FIELDS).join(', ')}, got "${name}"`);
  if (rest.length || (direction !== 'asc' && direction !== 'desc')) throw badSort(`must look like "${name}:asc" or "${name}:desc", got "${sort}"`);
  return { field, direction };
}

/**
 * One page of the project's connect tokens matching the filters. A token past its expiry is listed
 * with its stored status (an expired token is never written back): `expires` tells whether it can
 * still be used, and expired tokens stay listable until the TTL index removes them a week later.
 */
export async function listConnectTokens(
  deps: Pick<ConnectTokenDeps, 'connectTokens'>,
  input: { projectId: string; filter: readonly string[]; sort: string; page?: number; pageSize?: number },
): Promise<ConnectTokenList> {
  const query: ConnectTokenListQuery = { conditions: parseConnectTokenFilters(input.filter), sort: parseConnectTokenSort(input.sort), ...parsePaging(input.page, input.pageSize) };
  const { items, total } = await deps.connectTokens.list(input.projectId, query);
  return { items, paging: { page: query.page, totalPages: Math.ceil(total / query.pageSize), totalItems: total } };
}
