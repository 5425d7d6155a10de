/**
 * The reference API's list parameters for identifiers: `filter[]` entries `field:eq:value`
 * (parseIdentifierFilters.ts), `sort` as `field:asc|desc` (parseIdentifierSort.ts), and 1-based
 * paging, parsed by services/runtime/listQuery.ts into a storage-neutral query.
 */
import { parsePaging } from '../../../../runtime/listQuery.js';
import type { IdentifierListQuery } from '../store/identifiers.js';
import { parseIdentifierFilters } from './parseIdentifierFilters.js';
import { parseIdentifierSort } from './parseIdentifierSort.js';

export function parseIdentifierListQuery(input: { filter: readonly string[]; sort: string; page?: number; pageSize?: number }): IdentifierListQuery {
  return { conditions: parseIdentifierFilters(input.filter), sort: parseIdentifierSort(input.sort), ...parsePaging(input.page, input.pageSize) };
}
