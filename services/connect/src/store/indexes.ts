/** Every collection the connect service owns, with its indexes (created at start-up). */
import type { IndexPlan } from '../../../runtime/mongo.js';
import { identifierIndexes } from './identifiers.js';
import { projectIndexes } from './projects.js';
import { userIndexes } from './users.js';

export const connectIndexes: IndexPlan = { ...projectIndexes, ...userIndexes, ...identifierIndexes };
