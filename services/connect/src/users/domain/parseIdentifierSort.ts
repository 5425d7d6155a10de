/** The `sort` parameter (`field:asc|desc`) of the reference API's identifier list, parsed by services/runtime/listQuery.ts. */
import { parseSortParam } from '../../../../runtime/listQuery.js';
import type { IdentifierSort, IdentifierSortField } from '../store/identifiers.js';
import { FILTER_FIELDS } from './parseIdentifierFilters.js';

const SORT_FIELDS: Record<string, IdentifierSortField> = { ...FILTER_FIELDS, created: 'createdAt' };

/** `field:asc` or `field:desc`; the empty string (the SDK always sends `sort=`) means creation order. */
export function parseIdentifierSort(sort: string): IdentifierSort | null {
  return parseSortParam(sort, SORT_FIELDS);
}
