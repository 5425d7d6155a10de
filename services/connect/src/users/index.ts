/**
 * users (users and identifiers, UserService): what other features may use: the stores' record
 * types (users, identifiers, social accounts), the identifier rules and limits, finding a user by a login identifier, deleting a user.
 * Composed in server.ts from handlers/userService.ts with UserDeps.
 */
export { classifyIdentifier } from './domain/loginIdentifiers.js';
export type { LoginIdentifier } from './domain/loginIdentifiers.js';
export { deleteUser } from './domain/deleteUser.js';
export { activateUser, changeUser, userEventData } from './domain/changeUser.js';
export { findLoginIdentifierOfUser, pickLoginIdentifier } from './domain/loginIdentifiers.js';
export { findUserByIdentifier } from './domain/loginIdentifiers.js';
export { checkIdentifierLimit } from './domain/identifierLimits.js';
export { MAX_SOCIAL_ACCOUNTS_PER_USER } from './domain/createSocialAccount.js';
export { IDENTIFIER_TYPES, checkIdentifierType, normalizeIdentifier } from './domain/identifierRules.js';
export { chooseVouchedUsername, pickVouchedUsername } from './domain/pickVouchedUsername.js';
export type { UserDeps } from './domain/userDeps.js';
export type { IdentifierRecord, IdentifierStatus, IdentifierStore, IdentifierType } from './store/identifiers.js';
export type { UserRecord, UserStore } from './store/users.js';
export type { SocialAccountRecord, SocialAccountStore } from './store/socialAccounts.js';
