/** Every collection the connect service owns, with its indexes (created at start-up). */
import type { IndexPlan } from '../../../runtime/mongo.js';
import { clientEnvIndexes } from './clientEnvs.js';
import { connectTokenIndexes } from './connectTokens.js';
import { identifierIndexes } from './identifiers.js';
import { processIndexes } from './processes.js';
import { projectIndexes } from './projects.js';
import { userIndexes } from './users.js';

export const connectIndexes: IndexPlan = { ...projectIndexes, ...userIndexes, ...identifierIndexes, ...processIndexes, ...clientEnvIndexes, ...connectTokenIndexes };
