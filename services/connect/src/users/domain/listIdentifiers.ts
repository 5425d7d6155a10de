import type { IdentifierRecord } from '../store/identifiers.js';
import { parseIdentifierListQuery } from './identifierListQuery.js';
import type { UserDeps } from './userDeps.js';

export interface IdentifierList {
  items: IdentifierRecord[];
  paging: { page: number; totalPages: number; totalItems: number };
}

/** One page of the project's identifiers matching the filters (see identifierListQuery.ts for the syntax). */
export async function listIdentifiers(
  deps: Pick<UserDeps, 'identifiers'>,
  input: { projectId: string; filter: readonly string[]; sort: string; page?: number; pageSize?: number },
): Promise<IdentifierList> {
  const query = parseIdentifierListQuery(input);
  const { items, total } = await deps.identifiers.list(input.projectId, query);
  return { items, paging: { page: query.page, totalPages: Math.ceil(total / query.pageSize), totalItems: total } };
}
