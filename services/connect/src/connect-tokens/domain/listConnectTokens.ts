/**
 * The reference API's list of connect tokens: `filter[]` entries `field:eq:value` on tokenType,
 * connectTokenStatus and identifier, `sort` as `created|expires:asc|desc`, and 1-based paging
 * (services/runtime/listQuery.ts).
 */
import type { ConnectTokenCondition, ConnectTokenField, ConnectTokenListQuery, ConnectTokenRecord, ConnectTokenSort, ConnectTokenSortField } from '../store/connectTokens.js';
import type { ConnectTokenDeps } from './connectTokenDeps.js';
import { checkConnectTokenStatus, checkConnectTokenType } from './connectTokenRules.js';
import { badFilter, parseFilterEntry, parsePaging, parseSortParam } from '../../../../runtime/listQuery.js';

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

/**
 * Parses `field:eq:value` filters (services/runtime/listQuery.ts). identifier is compared trimmed, as it was stored; type and status values must be ones that exist.
 */
export function parseConnectTokenFilters(filters: readonly string[]): ConnectTokenCondition[] {
  // Entry by entry: each is split and its value checked before the next is read.
  return filters.map((raw): ConnectTokenCondition => {
    const { field, name, value } = parseFilterEntry(raw, FILTER_FIELDS);
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
  return parseSortParam(sort, SORT_FIELDS);
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
