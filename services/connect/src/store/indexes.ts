/** Every collection the connect service owns, with its indexes (created at start-up). */
import type { IndexPlan } from '../../../runtime/mongo.js';
import { authProcessIndexes } from './authProcesses.js';
import { clientEnvIndexes } from './clientEnvs.js';
import { connectTokenIndexes } from './connectTokens.js';
import { identifierIndexes } from './identifiers.js';
import { identifierVerificationIndexes } from './identifierVerifications.js';
import { meAppendIndexes } from './meAppends.js';
import { processIndexes } from './processes.js';
import { projectIndexes } from './projects.js';
import { sessionIndexes } from './sessions.js';
import { userIndexes } from './users.js';

export const connectIndexes: IndexPlan = { ...projectIndexes, ...userIndexes, ...identifierIndexes, ...processIndexes, ...clientEnvIndexes, ...authProcessIndexes, ...connectTokenIndexes, ...sessionIndexes, ...meAppendIndexes, ...identifierVerificationIndexes };
