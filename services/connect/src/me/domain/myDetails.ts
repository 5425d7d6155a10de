/** The signed-in user's details: GET and PATCH /v2/me, and what the SDK's user-details screen may show and edit. */
import { changeUser, IDENTIFIER_TYPES, MAX_SOCIAL_ACCOUNTS_PER_USER, type IdentifierRecord, type SocialAccountRecord } from '../../users/index.js';
import { eventClientOf } from '../../shared/domain/changeEvents.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { signedInUser } from './signedInUser.js';

/**
 * GET /v2/me: the signed-in user with their identifiers and the social accounts the application
 * linked to them (both oldest first; the accounts are bounded per user, so this reads them all).
 */
export interface Me {
  id: string;
  fullName: string;
  identifiers: Array<Pick<IdentifierRecord, 'type' | 'value' | 'status'> & { id: string }>;
  socialAccounts: Array<Pick<SocialAccountRecord, 'providerType' | 'identifierValue' | 'avatarUrl' | 'fullName'>>;
}

export async function getMe(deps: MeDeps, call: MeCall): Promise<Me> {
  const user = await signedInUser(deps, call);
  const [identifiers, socialAccounts] = await Promise.all([
    deps.identifiers.listForUser(call.projectId, user._id),
    deps.socialAccounts.listForUser(call.projectId, user._id, MAX_SOCIAL_ACCOUNTS_PER_USER),
  ]);
  return {
    id: user._id,
    fullName: user.fullName ?? '',
    identifiers: identifiers.map((i) => ({ id: i._id, value: i.value, type: i.type, status: i.status })),
    socialAccounts: socialAccounts.map((a) => ({ providerType: a.providerType, identifierValue: a.identifierValue, avatarUrl: a.avatarUrl, fullName: a.fullName })),
  };
}

/**
 * PATCH /v2/me: the signed-in user sets their full name. It is trimmed; an empty name removes it,
 * which the user-details config allows (fullNameRequired is false: sign-up takes no name either).
 */
export async function updateMyName(deps: MeDeps, call: MeCall, fullName: string): Promise<void> {
  const user = await signedInUser(deps, call);
  const name = fullName.trim();
  // The user was just found; a concurrent account delete may still win, and then there is nothing
  // to name. A new name records user.updated with the browser as its client.
  await changeUser(deps, call.projectId, user._id, name === '' ? { unsetFullName: true } : { fullName: name }, eventClientOf(call));
}

/**
 * GET /v2/user-details-config: what the SDK's user-details screen may show and edit. Projects have
 * no per-project identifier settings: sign-up accepts an email address, a phone number and a
 * username, and no full name is required, so every project answers the same.
 */
export interface UserDetailsConfig {
  fullNameRequired: boolean;
  identifiers: { type: string }[];
}

export function getUserDetailsConfig(): UserDetailsConfig {
  return { fullNameRequired: false, identifiers: IDENTIFIER_TYPES.map((type) => ({ type })) };
}
