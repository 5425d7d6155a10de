/**
 * The backend API's identifier list query (GET /v2/identifiers): `filter[]` conditions and `sort`,
 * parsed into the store's terms; anything else is a 400 validation_error naming the parameter.
 */
import { badFilter, parseFilterEntries, parsePaging, parseSortParam } from '../../../../runtime/listQuery.js';
import type { IdentifierCondition, IdentifierField, IdentifierListQuery, IdentifierSort, IdentifierSortField, IdentifierType } from '../store/identifiers.js';
import { checkIdentifierStatus, checkIdentifierType, normalizeIdentifier } from './identifierRules.js';

/**
 * The reference API's list parameters for identifiers: `filter[]` entries `field:eq:value`
 * (parseIdentifierFilters below), `sort` as `field:asc|desc` (parseIdentifierSort below), and 1-based
 * paging, parsed by services/runtime/listQuery.ts into a storage-neutral query.
 */
export function parseIdentifierListQuery(input: { filter: readonly string[]; sort: string; page?: number; pageSize?: number }): IdentifierListQuery {
  return { conditions: parseIdentifierFilters(input.filter), sort: parseIdentifierSort(input.sort), ...parsePaging(input.page, input.pageSize) };
}

/** The API's filter fields and the stored fields they name (the sort fields add `created`). */
export const FILTER_FIELDS: Record<string, IdentifierField> = {
  identifierValue: 'value',
  identifierType: 'type',
  userID: 'userId',
  status: 'status',
};

/**
 * Parses `field:eq:value` filters (services/runtime/listQuery.ts). userID is accepted with or
 * without its `usr-` prefix, because the published Node SDK sends the bare number. identifierValue
 * is normalized like stored values: by the type filter's rules if one is given, else trimmed and
 * lower-cased (a value that cannot be normalized simply matches nothing).
 */
export function parseIdentifierFilters(filters: readonly string[]): IdentifierCondition[] {
  const parsed = parseFilterEntries(filters, FILTER_FIELDS);
  const typeFilter = parsed.find((c) => c.field === 'type');
  const type = typeFilter ? checkType(typeFilter.value) : undefined;
  return parsed.map(({ field, value }): IdentifierCondition => {
    switch (field) {
      case 'type':
        return { field, value: checkType(value) };
      case 'status':
        return { field, value: checkStatus(value) };
      case 'userId':
        return { field, value: normalizeUserIdFilter(value) };
      case 'value':
        return { field, value: normalizeValueFilter(type, value) };
    }
  });
}

function checkType(value: string): IdentifierType {
  try {
    return checkIdentifierType(value);
  } catch {
    throw badFilter(`identifierType must be one of email, phone, username, got "${value}"`);
  }
}

function checkStatus(value: string): string {
  try {
    return checkIdentifierStatus(value);
  } catch {
    throw badFilter(`status must be one of pending, primary, verified, got "${value}"`);
  }
}

function normalizeUserIdFilter(value: string): string {
  if (/^[0-9]{1,30}$/.test(value)) return `usr-${value}`;
  if (/^usr-[0-9]{1,30}$/.test(value)) return value;
  throw badFilter(`userID must be "usr-<number>" or "<number>", got "${value}"`);
}

function normalizeValueFilter(type: IdentifierType | undefined, value: string): string {
  if (type) {
    try {
      return normalizeIdentifier(type, value);
    } catch {
      // Not a valid value of that type, so no stored identifier can equal it; keep it as given.
    }
  }
  return value.trim().toLowerCase();
}

/** The `sort` parameter (`field:asc|desc`) of the reference API's identifier list, parsed by services/runtime/listQuery.ts. */
const SORT_FIELDS: Record<string, IdentifierSortField> = { ...FILTER_FIELDS, created: 'createdAt' };

/** `field:asc` or `field:desc`; the empty string (the SDK always sends `sort=`) means creation order. */
export function parseIdentifierSort(sort: string): IdentifierSort | null {
  return parseSortParam(sort, SORT_FIELDS);
}
