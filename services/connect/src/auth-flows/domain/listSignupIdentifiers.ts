/**
 * The identifiers the sign-up form asks for (the signup-init block lists each, with an empty value,
 * and the web SDK shows a field per entry). Projects have no setting for it yet, so every project
 * asks for an email address: the identifier the flow can verify and send notices to
 * (initSignup.ts still accepts a phone number or username sent by other clients).
 */
import type { IdentifierType } from '../../users/index.js';

export function listSignupIdentifiers(): IdentifierType[] {
  return ['email'];
}
