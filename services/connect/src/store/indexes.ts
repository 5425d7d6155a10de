/** Every collection the connect service owns, with its indexes (created at start-up). */
import type { IndexPlan } from '../../../runtime/mongo.js';
import { authProcessIndexes } from '../auth-flows/store/authProcesses.js';
import { clientEnvIndexes } from '../shared/store/clientEnvs.js';
import { connectTokenIndexes } from '../connect-tokens/store/connectTokens.js';
import { identifierIndexes, prepareIdentifierClaims } from '../users/store/identifiers.js';
import { identifierVerificationIndexes } from '../me/store/identifierVerifications.js';
import { meAppendIndexes } from '../me/store/meAppends.js';
import { processIndexes } from '../connect-flows/store/processes.js';
import { projectIndexes } from '../projects/store/projects.js';
import { socialAccountIndexes } from '../users/store/socialAccounts.js';
import { sessionIndexes } from '../sessions/store/sessions.js';
import { userIndexes } from '../users/store/users.js';
import { outboxIndexes } from '../../../runtime/outbox.js';

/** connect's event outbox (services/runtime/outbox.ts). */
export const CONNECT_OUTBOX = 'connect_outbox';

export const connectIndexes: IndexPlan = { ...projectIndexes, ...userIndexes, ...identifierIndexes, ...processIndexes, ...clientEnvIndexes, ...authProcessIndexes, ...connectTokenIndexes, ...sessionIndexes, ...meAppendIndexes, ...identifierVerificationIndexes, ...socialAccountIndexes, ...outboxIndexes(CONNECT_OUTBOX) };

/** What connect changes in documents of older versions before its indexes are built (connectStore's `prepare`). */
export const prepareConnectStore = prepareIdentifierClaims;
