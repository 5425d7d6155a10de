/**
 * How many identifiers of each type a user may have. One username (it is the name the user-details
 * screen shows); a few email addresses and phone numbers, so one account cannot claim an unbounded
 * number of values that nobody else in the project may then use.
 */
import type { IdentifierType } from '../../users/store/identifiers.js';

export const MAX_IDENTIFIERS_PER_TYPE: Record<IdentifierType, number> = { email: 5, phone: 5, username: 1 };
