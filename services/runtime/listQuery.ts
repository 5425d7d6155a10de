/**
 * The one parser of the reference API's list parameters, shared by every list (identifiers,
 * connect tokens, passkeys): `filter[]` entries `field:eq:value`, `sort` as `field:asc|desc`, and
 * 1-based paging. Each list names its fields and checks the filter values by its own rules; the
 * errors are 400 validation_error naming the parameter.
 */
import { invalidArgument, type DomainError } from './errors.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;
const MAX_PAGE = 100_000;

export interface SortOrder<F> {
  field: F;
  direction: 'asc' | 'desc';
}

/** One `filter[]` entry: the list's field, the name the caller used for it, and the value as given. */
export interface FilterEntry<F> {
  field: F;
  name: string;
  value: string;
}

export function badFilter(message: string): DomainError {
  return invalidArgument('validation_error', `filter ${message}`, [{ field: 'filter', message }]);
}

function badSort(message: string): DomainError {
  return invalidArgument('validation_error', `sort ${message}`, [{ field: 'sort', message }]);
}

/**
 * Splits one `field:eq:value` entry over the list's fields (outside name → field). The value may
 * itself contain ":": only the first two separate. "eq" is the only operator the reference has.
 */
export function parseFilterEntry<F>(raw: string, fields: Readonly<Record<string, F>>): FilterEntry<F> {
  const first = raw.indexOf(':');
  const second = first < 0 ? -1 : raw.indexOf(':', first + 1);
  if (second < 0) throw badFilter(`entries must look like "field:eq:value"`);
  const name = raw.slice(0, first);
  const op = raw.slice(first + 1, second);
  const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
  if (field === undefined) throw badFilter(`field must be one of ${Object.keys(fields).join(', ')}, got "${name}"`);
  if (op !== 'eq') throw badFilter(`operator must be "eq", got "${op}" for ${name}`);
  return { field, name, value: raw.slice(second + 1) };
}

/** Every entry split, before any value is checked (see parseFilterEntry). */
export function parseFilterEntries<F>(filters: readonly string[], fields: Readonly<Record<string, F>>): FilterEntry<F>[] {
  return filters.map((raw) => parseFilterEntry(raw, fields));
}

/**
 * `field:asc` or `field:desc` over the list's sortable fields. Blank (the SDKs always send
 * `sort=`) is null: the list's own default order.
 */
export function parseSortParam<F>(sort: string, fields: Readonly<Record<string, F>>): SortOrder<F> | null {
  if (sort.trim() === '') return null;
  const [name, direction, ...rest] = sort.trim().split(':');
  const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
  if (field === undefined) throw badSort(`field must be one of ${Object.keys(fields).join(', ')}, got "${name}"`);
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
