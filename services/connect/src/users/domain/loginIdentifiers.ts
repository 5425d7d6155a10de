/**
 * Connect flows name users by the identifier the application knows them by (what the user typed,
 * or what the application's server put into a connect token). Its type follows from its shape:
 * an "@" makes an email address, a leading "+" and digits a phone number, anything else a username.
 */
import { DomainError } from '../../../../runtime/errors.js';
import type { IdentifierType } from '../store/identifiers.js';
import { normalizeIdentifier } from './identifierRules.js';

export interface LoginIdentifier {
  type: IdentifierType;
  /** Normalized as stored (see identifierRules). */
  value: string;
}

/** The typed identifier, or null when the value fits none of the identifier rules. */
export function classifyIdentifier(raw: string): LoginIdentifier | null {
  const trimmed = raw.trim();
  const type: IdentifierType = trimmed.includes('@') ? 'email' : /^\+[0-9\s()-]+$/.test(trimmed) ? 'phone' : 'username';
  try {
    return { type, value: normalizeIdentifier(type, trimmed) };
  } catch (err) {
    if (err instanceof DomainError) return null;
    throw err;
  }
}
