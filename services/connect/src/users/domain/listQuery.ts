/**
 * The reference API's list parameters for identifiers: `filter[]` entries `field:eq:value`, `sort`
 * as `field:asc|desc`, and 1-based paging. Parsed into a storage-neutral query.
 */
import { invalidArgument } from '../../../../runtime/errors.js';
import type { IdentifierCondition, IdentifierField, IdentifierListQuery, IdentifierSort, IdentifierSortField, IdentifierType } from '../store/identifiers.js';
import { checkIdentifierStatus, checkIdentifierType, normalizeIdentifier } from './identifierRules.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;
const MAX_PAGE = 100_000;

const FILTER_FIELDS: Record<string, IdentifierField> = {
  identifierValue: 'value',
  identifierType: 'type',
  userID: 'userId',
  status: 'status',
};
const SORT_FIELDS: Record<string, IdentifierSortField> = { ...FILTER_FIELDS, created: 'createdAt' };

function badFilter(message: string) {
  return invalidArgument('validation_error', `filter ${message}`, [{ field: 'filter', message }]);
}

function badSort(message: string) {
  return invalidArgument('validation_error', `sort ${message}`, [{ field: 'sort', message }]);
}

/**
 * Parses `field:eq:value` filters. The value may itself contain ":"; only the first two separate.
 * userID is accepted with or without its `usr-` prefix, because the published Node SDK sends the
 * bare number. identifierValue is normalized like stored values: by the type filter's rules if one
 * is given, else trimmed and lower-cased (a value that cannot be normalized simply matches nothing).
 */
export function parseIdentifierFilters(filters: readonly string[]): IdentifierCondition[] {
  const parsed = filters.map((raw) => {
    const first = raw.indexOf(':');
    const second = first < 0 ? -1 : raw.indexOf(':', first + 1);
    if (second < 0) throw badFilter(`entries must look like "field:eq:value"`);
    const name = raw.slice(0, first);
    const op = raw.slice(first + 1, second);
    const value = raw.slice(second + 1);
    const field = Object.hasOwn(FILTER_FIELDS, name) ? FILTER_FIELDS[name] : undefined;
    if (!field) throw badFilter(`field must be one of ${Object.keys(FILTER_FIELDS).join(', ')}, got "${name}"`);
    if (op !== 'eq') throw badFilter(`operator must be "eq", got "${op}" for ${name}`);
    return { field, value };
  });
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

/** `field:asc` or `field:desc`; the empty string (the SDK always sends `sort=`) means creation order. */
export function parseIdentifierSort(sort: string): IdentifierSort | null {
  if (sort.trim() === '') return null;
  const [name, direction, ...rest] = sort.trim().split(':');
  const field = Object.hasOwn(SORT_FIELDS, name) ? SORT_FIELDS[name] : undefined;
  if (!field) throw badSort(`field must be one of ${Object.keys(SORT_FIELDS).join(', ')}, got "${name}"`);
  if (rest.length || (direction !== 'asc' && direction !== 'desc')) throw badSort(`must look like "${name}:asc" or "${name}:desc", got "${sort}"`);
  return { field, direction };
}

/** Page defaults to 1 and page size to 10; both are bounded so one request cannot ask for everything. */
export function parsePaging(page: number | undefined, pageSize: number | undefined): { page: number; pageSize: number } {
  const p = page ?? 1;
  const size = pageSize ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(p) || p < 1 || p > MAX_PAGE) {
    throw invalidArgument('validation_error', `page must be an integer from 1 to ${MAX_PAGE}, got ${p}`, [{ field: 'page', message: `must be from 1 to ${MAX_PAGE}` }]);
  }
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw invalidArgument('validation_error', `pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${size}`, [
      { field: 'pageSize', message: `must be from 1 to ${MAX_PAGE_SIZE}` },
    ]);
  }
  return { page: p, pageSize: size };
}

export function parseIdentifierListQuery(input: { filter: readonly string[]; sort: string; page?: number; pageSize?: number }): IdentifierListQuery {
  return { conditions: parseIdentifierFilters(input.filter), sort: parseIdentifierSort(input.sort), ...parsePaging(input.page, input.pageSize) };
}
