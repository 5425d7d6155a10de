import { newId } from '../../../runtime/ids.js';
import { notFound } from '../../../runtime/errors.js';
import type { ChallengeRecord, ChallengeStore } from '../store/challenges.js';
import { checkMetadataSize, lifetimeFor, newChallengeValue, normalizeIdentifier, type ChallengeType } from './challengeRules.js';
import type { ValueHasher } from './valueHasher.js';

/** Asks the service that owns users whether a user exists in a project. */
export interface UserDirectory {
  userExists(projectId: string, userId: string): Promise<boolean>;
}

export interface CreateChallengeInput {
  projectId: string;
  userId: string;
  type: ChallengeType;
  identifierValue: string;
  metadata?: Record<string, unknown>;
  lifetimeSeconds?: number;
}

/** A created challenge, with its value in plain text (returned once, never stored). */
export interface CreatedChallenge {
  challengeId: string;
  type: ChallengeType;
  identifierValue: string;
  value: string;
  expiresAt: Date;
  status: 'pending';
}

export interface CreateChallengeDeps {
  store: ChallengeStore;
  users: UserDirectory;
  hasher: ValueHasher;
  now: () => Date;
}

/**
 * Creates a pending challenge for a user of the project. Checks the input first, then that the
 * user exists (404 otherwise, also for a user of another project), then stores one document.
 */
export async function createChallenge(deps: CreateChallengeDeps, input: CreateChallengeInput): Promise<CreatedChallenge> {
  const identifierValue = normalizeIdentifier(input.type, input.identifierValue);
  const lifetime = lifetimeFor(input.type, input.lifetimeSeconds);
  checkMetadataSize(input.metadata);
  if (!(await deps.users.userExists(input.projectId, input.userId))) {
    throw notFound('user_not_found', `user ${input.userId} does not exist`);
  }
  const now = deps.now();
  const challengeId = newId('cha');
  const value = newChallengeValue(input.type);
  const record: ChallengeRecord = {
    _id: challengeId,
    projectId: input.projectId,
    userId: input.userId,
    type: input.type,
    identifierValue,
    valueHash: deps.hasher.hash(challengeId, value),
    status: 'pending',
    attempts: 0,
    metadata: input.metadata ?? {},
    createdAt: now,
    expiresAt: new Date(now.getTime() + lifetime * 1000),
  };
  await deps.store.insert(record);
  return { challengeId, type: input.type, identifierValue, value, expiresAt: record.expiresAt, status: 'pending' };
}
