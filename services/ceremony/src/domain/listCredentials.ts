import { invalidArgument, notFound } from '../../../runtime/errors.js';
import type { CredentialRecord, CredentialSortField } from '../store/credentials.js';
import type { CeremonyDomainDeps } from './deps.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

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
  const page = input.page ?? 1;
  const pageSize = Math.min(input.pageSize ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const { items, total } = await deps.credentials.page({ projectId: input.projectId, userId: input.userId, sort, skip: (page - 1) * pageSize, limit: pageSize });
  return { credentials: items, page, totalPages: Math.ceil(total / pageSize), totalItems: total };
}

function parseSort(raw: string): { field: CredentialSortField; direction: 'asc' | 'desc' } {
  if (raw === '') return { field: 'createdAt', direction: 'asc' };
  const [name, direction, ...rest] = raw.split(':');
  const field = Object.hasOwn(SORT_FIELDS, name) ? SORT_FIELDS[name] : undefined;
  if (!field || (direction !== 'asc' && direction !== 'desc') || rest.length) {
    throw invalidArgument('validation_error', `sort must be "created:asc", "created:desc", "lastUsed:asc" or "lastUsed:desc", got "${raw}"`, [
      { field: 'sort', message: 'must be created:asc|desc or lastUsed:asc|desc' },
    ]);
  }
  return { field, direction };
}
