/**
 * Records a social identity linked to a user (POST /v2/users/{userID}/socialAccounts). The
 * application did the social login itself; this service only keeps the record, so the provider's
 * account is found again (GET /v2/socialAccounts?filter[]=foreignID:eq:…) and listed with the user.
 */
import { alreadyExists, failedPrecondition, invalidArgument } from '../../../../runtime/errors.js';
import { newId } from '../../../../runtime/ids.js';
import type { SocialAccountRecord, SocialAccountStore, SocialProviderType } from '../store/socialAccounts.js';
import { getUser } from './getUser.js';
import type { UserDeps } from './userDeps.js';

export const SOCIAL_PROVIDER_TYPES: readonly SocialProviderType[] = ['google', 'microsoft', 'github'];

/**
 * Linked accounts per user: one per provider is the usual case; a few more allow several accounts
 * of one provider, and the bound keeps one user from holding an unbounded number of provider IDs
 * that nobody else in the project may then link.
 */
export const MAX_SOCIAL_ACCOUNTS_PER_USER = 10;

export interface CreateSocialAccountInput {
  projectId: string;
  userId: string;
  providerType: string;
  identifierValue: string;
  foreignId: string;
  avatarUrl: string;
  fullName: string;
}

export async function createSocialAccount(deps: Pick<UserDeps, 'users' | 'socialAccounts' | 'now'>, input: CreateSocialAccountInput): Promise<SocialAccountRecord> {
  const providerType = checkProviderType(input.providerType);
  const identifierValue = required('identifierValue', input.identifierValue);
  const foreignId = required('foreignID', input.foreignId);
  const avatarUrl = checkAvatarUrl(input.avatarUrl.trim());
  await getUser(deps, input.projectId, input.userId);
  await checkSocialAccountLimit(deps.socialAccounts, input.projectId, input.userId);
  const record: SocialAccountRecord = {
    _id: newId('soc'),
    projectId: input.projectId,
    userId: input.userId,
    providerType,
    identifierValue,
    foreignId,
    avatarUrl,
    fullName: input.fullName.trim(),
    createdAt: deps.now(),
  };
  // The unique index decides: of two concurrent creates of the same provider account, one wins.
  if ((await deps.socialAccounts.insert(record)) === 'duplicate') {
    throw alreadyExists('social_account_already_exists', `a ${providerType} account with this foreignID is already linked to a user of the project`);
  }
  // A concurrent create may have taken the last place since the first check: then this record goes.
  await checkSocialAccountLimit(deps.socialAccounts, input.projectId, input.userId, record);
  return record;
}

function checkProviderType(value: string): SocialProviderType {
  const found = SOCIAL_PROVIDER_TYPES.find((t) => t === value);
  if (!found) throw invalid('providerType', `must be one of ${SOCIAL_PROVIDER_TYPES.join(', ')}`);
  return found;
}

/** Trimmed; blank is refused (protovalidate counts spaces as content). */
function required(field: string, value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw invalid(field, 'must not be blank');
  return trimmed;
}

/** "" (the provider has no picture) or an absolute http(s) URL: it ends up in an <img src> of the application. */
function checkAvatarUrl(value: string): string {
  if (value === '') return value;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // Refused below.
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw invalid('avatarURL', 'must be empty or an absolute http(s) URL');
  return value;
}

function invalid(field: string, message: string) {
  return invalidArgument('validation_error', `${field} ${message}`, [{ field, message }]);
}

/**
 * Refuses with failed_precondition `social_account_limit_reached` (409) when the user has no room.
 * Called before the insert (nothing written) and after it with the inserted record, because two
 * concurrent creates can both pass the first check: the records beyond the limit are the newest,
 * and only such a record removes itself.
 */
async function checkSocialAccountLimit(store: Pick<SocialAccountStore, 'listForUser' | 'delete'>, projectId: string, userId: string, inserted?: SocialAccountRecord): Promise<void> {
  const accounts = await store.listForUser(projectId, userId, MAX_SOCIAL_ACCOUNTS_PER_USER + 1);
  const over = inserted ? accounts.findIndex((a) => a._id === inserted._id) >= MAX_SOCIAL_ACCOUNTS_PER_USER || !accounts.some((a) => a._id === inserted._id) : accounts.length >= MAX_SOCIAL_ACCOUNTS_PER_USER;
  if (!over) return;
  if (inserted) await store.delete(projectId, userId, inserted._id);
  throw failedPrecondition('social_account_limit_reached', `a user can have at most ${MAX_SOCIAL_ACCOUNTS_PER_USER} social accounts`);
}
