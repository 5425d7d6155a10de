import { newId } from '../../../runtime/ids.js';
import type { EventOutbox } from '../../../runtime/outbox.js';
import { notFound } from '../../../runtime/errors.js';
import type { ChallengeRecord, ChallengeStore } from '../store/challenges.js';
import { checkChallengeMetadata } from './challengeMetadata.js';
import type { ChallengeType } from '../store/challenges.js';
import { checkMetadataSize, lifetimeFor, newChallengeValue, normalizeIdentifier } from './challengeRules.js';
import type { ProjectSettingsSource } from './projectSettings.js';
import type { ChallengeRateLimits } from './rateLimits.js';
import type { ValueHasher } from './valueHasher.js';
import { checkDeliverable, deliverChallenge } from './delivery/deliverChallenge.js';
import type { DeliveryDeps } from './delivery/ports.js';

/** Asks the service that owns users whether a user exists in a project. */
export interface UserDirectory {
  userExists(projectId: string, userId: string): Promise<boolean>;
  /** The user was deleted: what is remembered of it goes (directories that remember). */
  forget?(projectId: string, userId: string): void;
}

export interface CreateChallengeInput {
  /**
   * "project": deliver when the project's challengeDelivery is "service" (B1);
   * "always": deliver in any case (frontend flows, where the value must never reach the caller).
   */
  deliver: 'project' | 'always';
  projectId: string;
  userId: string;
  type: ChallengeType;
  identifierValue: string;
  metadata?: Record<string, unknown>;
  lifetimeSeconds?: number;
  /** The end user's address (see ChallengeRecord.clientAddress); "" when unknown. */
  clientAddress: string;
}

/** A created challenge, with its value in plain text (returned once, never stored). */
export interface CreatedChallenge {
  challengeId: string;
  type: ChallengeType;
  identifierValue: string;
  value: string;
  expiresAt: Date;
  status: 'pending';
  /** Whether this service delivered the value (email or SMS). */
  delivered: boolean;
}

export interface CreateChallengeDeps {
  store: ChallengeStore;
  /** Email and SMS senders; challenges are delivered when the project (or the caller) asks for it. */
  delivery: DeliveryDeps;
  users: UserDirectory;
  projects: ProjectSettingsSource;
  limits: ChallengeRateLimits;
  hasher: ValueHasher;
  /** The challenge's outbox (`challenge_outbox`): challenge.locked, recorded before the locking attempt is answered. */
  events: EventOutbox;
  now: () => Date;
}

/**
 * Creates a pending challenge for a user of the project. Checks the input first (the email
 * link's URL against the project's origins), then counts the creation against the rate limits of
 * the user and the identifier, then checks that the user exists (404 otherwise, also for a user
 * of another project), then stores one document and, when asked, delivers the value (removing the
 * document again if delivery fails).
 */
export async function createChallenge(deps: CreateChallengeDeps, input: CreateChallengeInput): Promise<CreatedChallenge> {
  const identifierValue = normalizeIdentifier(input.type, input.identifierValue);
  const lifetime = lifetimeFor(input.type, input.lifetimeSeconds);
  checkMetadataSize(input.metadata);
  // One lookup serves both the link check (origins) and the delivery decision.
  const project = await deps.projects.get(input.projectId);
  const metadata = await checkChallengeMetadata(input.type, input.metadata ?? {}, async () => project.origins);
  // Counted before the user lookup, so probing for users is limited as well.
  await deps.limits.countCreation(input.projectId, input.userId, identifierValue);
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
    metadata,
    ...(input.clientAddress ? { clientAddress: input.clientAddress.slice(0, 64) } : {}),
    createdAt: now,
    expiresAt: new Date(now.getTime() + lifetime * 1000),
  };
  const deliver = input.deliver === 'always' || project.challengeDelivery === 'service';
  // Refuse before storing anything when the message could not be sent at all (no sender, no link URL).
  if (deliver) checkDeliverable(deps.delivery, { type: input.type, metadata, emailLinkUrl: project.emailLinkUrl });
  await deps.store.insert(record);
  if (deliver) {
    try {
      await deliverChallenge(deps.delivery, {
        type: input.type,
        identifierValue,
        value,
        challengeId,
        expiresAt: record.expiresAt,
        metadata,
        appName: project.appName,
        emailLinkUrl: project.emailLinkUrl,
      });
    } catch (err) {
      // Nothing half-created: a challenge whose value never reached anyone is removed.
      await deps.store.remove(input.projectId, challengeId);
      throw err;
    }
  }
  return { challengeId, type: input.type, identifierValue, value, expiresAt: record.expiresAt, status: 'pending', delivered: deliver };
}
