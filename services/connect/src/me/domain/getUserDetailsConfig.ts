/**
 * GET /v2/user-details-config: what the SDK's user-details screen may show and edit. Projects have
 * no per-project identifier settings: sign-up accepts an email address, a phone number and a
 * username, and no full name is required, so every project answers the same.
 */
import { IDENTIFIER_TYPES } from '../../users/index.js';

export interface UserDetailsConfig {
  fullNameRequired: boolean;
  identifiers: { type: string }[];
}

export function getUserDetailsConfig(): UserDetailsConfig {
  return { fullNameRequired: false, identifiers: IDENTIFIER_TYPES.map((type) => ({ type })) };
}
