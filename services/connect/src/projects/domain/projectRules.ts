/** Validation and normalization of project settings; every problem is an invalid_argument DomainError. */
import { invalidArgument } from '../../../../runtime/errors.js';
import { PROJECT_ID } from '../../../../runtime/wire.js';
import type { ChallengeDelivery, Environment, UserVerification } from '../store/projects.js';

export const ENVIRONMENTS: readonly Environment[] = ['development', 'production'];

/** The literal a frontend API URL template may contain, replaced by the project ID. */
export const PROJECT_ID_SLOT = '{projectID}';

function invalid(field: string, message: string) {
  return invalidArgument('validation_error', `${field} ${message}`, [{ field, message }]);
}

export function isProjectId(value: string): boolean {
  return PROJECT_ID.test(value);
}

/** A display name: trimmed, 1–128 characters. */
export function normalizeName(field: string, value: string): string {
  const name = value.trim();
  if (name.length < 1 || name.length > 128) throw invalid(field, `must be 1 to 128 characters, got ${name.length}`);
  return name;
}

/**
 * A WebAuthn RP ID is a registrable domain or `localhost`: lower-case labels of letters, digits
 * and hyphens, no scheme, port or path (browsers reject anything else).
 */
export function normalizeRpId(value: string): string {
  const rpId = value.trim().toLowerCase();
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  if (rpId.length > 253 || !rpId.split('.').every((l) => label.test(l))) {
    throw invalid('rpId', `must be a domain name such as "example.com" or "localhost", got "${value}"`);
  }
  return rpId;
}

/**
 * An origin is scheme, host and port only: an absolute http(s) URL without credentials, path,
 * query or fragment (a single trailing "/" is tolerated). Returned in the browser's serialization
 * (lower-case host, default port dropped), which is what the Origin header and clientDataJSON carry.
 */
export function normalizeOrigin(value: string): string {
  const raw = value.trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('origins', `must be absolute URLs such as "https://app.example.com", got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('origins', `must use http or https, got "${value}"`);
  if (url.username || url.password) throw invalid('origins', `must not contain credentials, got "${value}"`);
  if (url.pathname !== '/' || url.search || url.hash || /[?#]/.test(raw) || /^[a-z]+:\/\/[^/]+\/./i.test(raw)) {
    throw invalid('origins', `must not have a path, query or fragment, got "${value}"`);
  }
  return url.origin;
}

/** At least one origin; duplicates (after normalization) collapse into one. */
export function normalizeOrigins(values: readonly string[]): string[] {
  if (values.length === 0) throw invalid('origins', 'must contain at least one origin');
  return [...new Set(values.map(normalizeOrigin))];
}

export function normalizeEnvironment(value: string | undefined): Environment {
  if (value === undefined) return 'development';
  if (!(ENVIRONMENTS as readonly string[]).includes(value)) throw invalid('environment', `must be one of ${ENVIRONMENTS.join(', ')}, got "${value}"`);
  return value as Environment;
}

/**
 * The project's frontend API URL from the configured template: `{projectID}` replaced, trailing
 * slashes dropped, because it is also the tokens' `iss` and must match exactly what verifiers expect.
 */
export function frontendApiUrlFor(template: string, projectId: string): string {
  return checkBaseUrl('FRONTEND_API_URL', template.split(PROJECT_ID_SLOT).join(projectId));
}

/** An absolute http(s) base URL without query or fragment, with no trailing slash. */
export function checkBaseUrl(name: string, value: string): string {
  const trimmed = value.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw invalid(name, `must be an absolute URL, got "${value}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw invalid(name, `must be an http(s) URL without query or fragment, got "${value}"`);
  }
  return trimmed;
}

const USER_VERIFICATION = ['required', 'preferred', 'discouraged'] as const;

/** The project's WebAuthn user-verification policy; "required" unless the operator chose otherwise. */
export function normalizeUserVerification(value: string | undefined): UserVerification {
  if (value === undefined) return 'required';
  if ((USER_VERIFICATION as readonly string[]).includes(value)) return value as UserVerification;
  throw invalidArgument('validation_error', `userVerification must be one of ${USER_VERIFICATION.join(', ')}`, [
    { field: 'userVerification', message: `must be one of ${USER_VERIFICATION.join(', ')}` },
  ]);
}

/** Default number of wrong values a challenge accepts before it expires. */
export const DEFAULT_MAX_CHALLENGE_ATTEMPTS = 5;

export function normalizeChallengeDelivery(value: string | undefined): ChallengeDelivery {
  if (value === undefined || value === 'app') return 'app';
  if (value === 'service') return 'service';
  throw invalidArgument('validation_error', 'challengeDelivery must be "app" or "service"', [
    { field: 'challengeDelivery', message: 'must be "app" or "service"' },
  ]);
}

export function normalizeMaxChallengeAttempts(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_CHALLENGE_ATTEMPTS;
  if (!Number.isInteger(value) || value < 1 || value > 20) {
    throw invalidArgument('validation_error', 'maxChallengeAttempts must be an integer from 1 to 20', [
      { field: 'maxChallengeAttempts', message: 'must be an integer from 1 to 20' },
    ]);
  }
  return value;
}

/** The email link base URL must be one of the project's origins (or a page under one). */
export function normalizeEmailLinkUrl(value: string | undefined, origins: string[]): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidArgument('validation_error', 'emailLinkUrl must be an absolute URL', [{ field: 'emailLinkUrl', message: 'must be an absolute URL' }]);
  }
  if (!origins.includes(url.origin)) {
    throw invalidArgument('validation_error', "emailLinkUrl must be on one of the project's origins", [
      { field: 'emailLinkUrl', message: "must be on one of the project's origins" },
    ]);
  }
  return url.toString();
}
