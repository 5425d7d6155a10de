/**
 * ChallengeRateLimits on rate-limiter-flexible's MongoDB store, so every replica counts against
 * the same limits. All limiters share one collection; their key prefixes keep them apart.
 */
import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import { RateLimiterMongo, RateLimiterRes } from 'rate-limiter-flexible';
import { DomainError, resourceExhausted } from '../../runtime/errors.js';
import type { ChallengeRateLimits, RateLimit, RateLimitConfig } from './domain/rateLimits.js';
import { RATE_LIMIT_COLLECTION } from './store/challenges.js';

export function mongoRateLimits(db: Db, config: RateLimitConfig): ChallengeRateLimits {
  const limiter = (keyPrefix: string, limit: RateLimit) =>
    new RateLimiterMongo({
      storeClient: db,
      tableName: RATE_LIMIT_COLLECTION,
      keyPrefix,
      points: limit.points,
      duration: limit.durationSeconds,
      // challengeIndexes declares the same indexes and connectStore creates them at start-up.
      disableIndexesCreation: true,
    });
  const perCreationUser = limiter('challenge_create_user', config.creationPerUser);
  const perIdentifier = limiter('challenge_create_identifier', config.creationPerIdentifier);
  const perChallenge = limiter('challenge_verify_challenge', config.verificationPerChallenge);
  const perUser = limiter('challenge_verify_user', config.verificationPerUser);
  const perAddress = limiter('challenge_verify_address', config.verificationPerAddress);

  return {
    async countCreation(projectId, userId, identifierValue) {
      await consume(perCreationUser, `${projectId}:${userId}`, `too many challenges for user ${userId}`);
      // Hashed, so the limit documents hold no email addresses or phone numbers.
      await consume(perIdentifier, `${projectId}:${digest(identifierValue)}`, 'too many challenges for this identifier');
    },
    async countVerification(projectId, { challengeId, userId }, clientAddress) {
      if (clientAddress) await consume(perAddress, `${projectId}:${digest(clientAddress)}`, 'too many verification attempts from this address');
      await consume(perUser, `${projectId}:${userId}`, `too many verification attempts for user ${userId}`);
      await consume(perChallenge, `${projectId}:${challengeId}`, `too many verification attempts for challenge ${challengeId}`);
    },
  };
}

async function consume(limiter: RateLimiterMongo, key: string, what: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (err) {
    // The library rejects with a RateLimiterRes when the limit is over, with an Error when the store fails.
    if (err instanceof RateLimiterRes) {
      const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      throw resourceExhausted('rate_limited', `${what}; retry in ${seconds} second(s)`, seconds);
    }
    throw new DomainError('unavailable', 'dependency_unavailable', 'the rate limit store is not reachable', [], { cause: err });
  }
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url').slice(0, 32);
}
