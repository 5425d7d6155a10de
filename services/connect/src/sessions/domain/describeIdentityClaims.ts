/**
 * The identity claims of a session token: what the token says about who the user is. A session
 * token is signed by the project, so an application (and the published SDKs) reads its claims as
 * facts; only values someone proved may be stated as facts.
 *
 * Proven: an identifier whose status is `verified` or `primary` (a code or link proved it, or the
 * application vouched for it through the backend API or a connect token). `pending` is unproven:
 * anyone can type any address at sign-up or on /v2/me/identifier.
 *
 * - `email`, `phone_number`: the first proven email address / phone number; absent when none is
 *   proven (an unproven one is never stated, not even flagged).
 * - `email_verified`, `phone_number_verified`: true when the claim beside it is present; false when
 *   the user has an address / number of that type but none of them is proven; absent when the user
 *   has none of that type at all.
 * - `orig`: the first proven identifier's value, else "" (the web SDK types it as a string).
 * - `name`: the full name, else the preferred value when it is a proven identifier's (the one a
 *   connect login used), else the first proven identifier's value, else "".
 * - `identifiers`: every identifier, proven or not, as `{type, value, status}`, so a page can show
 *   "unverified" next to an address without mistaking it for a fact.
 *
 * The published SDKs read `sub`, `name`, `email`, `orig` and `phone_number` (web-core's
 * SessionUser compares email, name, orig and sub; the Node SDK's validateToken reads sub and name):
 * all keep their types, only an unproven value is no longer among them.
 */
import type { IdentifierStatus, IdentifierType } from '../../users/index.js';

export interface ClaimIdentifier {
  type: IdentifierType;
  value: string;
  status: IdentifierStatus;
}

export interface IdentityClaims {
  name: string;
  orig: string;
  identifiers: ClaimIdentifier[];
  email?: string;
  email_verified?: boolean;
  phone_number?: string;
  phone_number_verified?: boolean;
}

/** What a token may state as a fact: proven by a code or link, or vouched for by the application. */
export function isProvenIdentifier(identifier: { status: IdentifierStatus }): boolean {
  return identifier.status === 'verified' || identifier.status === 'primary';
}

/** `identifiers` oldest first; `preferredName` is a connect login's choice (honoured only if true, see above). */
export function describeIdentityClaims(identifiers: readonly ClaimIdentifier[], fullName: string | undefined, preferredName?: string): IdentityClaims {
  const listed = identifiers.map((i) => ({ type: i.type, value: i.value, status: i.status }));
  const proven = listed.filter(isProvenIdentifier);
  const trusted = (value: string | undefined) => !!value && (value === fullName || proven.some((i) => i.value === value));
  const name = fullName || (trusted(preferredName) ? preferredName! : '') || proven[0]?.value || '';
  const claims: IdentityClaims = { name, orig: proven[0]?.value ?? '', identifiers: listed };
  const email = proven.find((i) => i.type === 'email')?.value;
  if (email) Object.assign(claims, { email, email_verified: true });
  else if (listed.some((i) => i.type === 'email')) claims.email_verified = false;
  const phone = proven.find((i) => i.type === 'phone')?.value;
  if (phone) Object.assign(claims, { phone_number: phone, phone_number_verified: true });
  else if (listed.some((i) => i.type === 'phone')) claims.phone_number_verified = false;
  return claims;
}
