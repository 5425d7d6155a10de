import { invalidArgument, notFound } from '../../../runtime/errors.js';
import { parsePaging, parseSortParam, type SortOrder } from '../../../runtime/listQuery.js';
import type { CredentialRecord, CredentialSortField } from '../store/credentials.js';
import type { CeremonyDomainDeps } from './deps.js';

export interface ListCredentialsInput {
  projectId: string;
  userId: string;
  /** "created:asc|desc" or "lastUsed:asc|desc"; "" for creation order (oldest first). */
  sort: string;
  page?: number;
  pageSize?: number;
}

export interface CredentialPage {
  credentials: CredentialRecord[];
  page: number;
  totalPages: number;
  totalItems: number;
}

const SORT_FIELDS: Record<string, CredentialSortField> = { created: 'createdAt', lastUsed: 'lastUsedAt' };

/**
 * Lists one page of a user's passkeys in this project. A user that does not exist here (unknown,
 * deleted, or another project's) is not_found `user_not_found`, as on every other user path.
 */
export async function listCredentials(deps: Pick<CeremonyDomainDeps, 'credentials' | 'users'>, input: ListCredentialsInput): Promise<CredentialPage> {
  const sort = parseSort(input.sort);
  if (!(await deps.users.find(input.projectId, input.userId))) throw notFound('user_not_found', `user ${input.userId} does not exist`);
  // The proto's rules bound both numbers as parsePaging does, so over the API this refuses nothing new.
  const { page, pageSize } = parsePaging(input.page, input.pageSize);
  const { items, total } = await deps.credentials.page({ projectId: input.projectId, userId: input.userId, sort, skip: (page - 1) * pageSize, limit: pageSize });
  return { credentials: items, page, totalPages: Math.ceil(total / pageSize), totalItems: total };
}

function parseSort(raw: string): SortOrder<CredentialSortField> {
  if (raw === '') return { field: 'createdAt', direction: 'asc' };
  // The shared parser reads the value; this list words its refusal its own way (every accepted
  // value named) and, unlike the others, has never accepted one padded with spaces.
  let order: SortOrder<CredentialSortField> | null = null;
  if (raw === raw.trim()) {
    try {
      order = parseSortParam(raw, SORT_FIELDS);
    } catch {
      // Worded below.
    }
  }
  if (!order) {
    throw invalidArgument('validation_error', `sort must be "created:asc", "created:desc", "lastUsed:asc" or "lastUsed:desc", got "${raw}"`, [
      { field: 'sort', message: 'must be created:asc|desc or lastUsed:asc|desc' },
    ]);
  }
  return order;
}
