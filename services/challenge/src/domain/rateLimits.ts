/**
 * Rate limits on creating and verifying challenges. Attempt limits stop guessing one challenge;
 * these stop flooding a user or an identifier with messages and spreading guesses across many
 * challenges or from one address. Each call counts one event and throws resource_exhausted
 * `rate_limited` (with the seconds until a retry can succeed) when a limit is over.
 */
export interface ChallengeRateLimits {
  /** One creation for the user and one for the (normalized) identifier, both within the project. */
  countCreation(projectId: string, userId: string, identifierValue: string): Promise<void>;
  /** One verification of the challenge, and one from the client address ("" when unknown: not limited). */
  countVerification(projectId: string, challengeId: string, clientAddress: string): Promise<void>;
}

/** At most `points` events per `durationSeconds` window. */
export interface RateLimit {
  points: number;
  durationSeconds: number;
}

export interface RateLimitConfig {
  creationPerUser: RateLimit;
  creationPerIdentifier: RateLimit;
  verificationPerChallenge: RateLimit;
  verificationPerAddress: RateLimit;
}

/** The defaults (documented in the README; main.ts reads overrides from the environment). */
export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  creationPerUser: { points: 5, durationSeconds: 600 },
  creationPerIdentifier: { points: 5, durationSeconds: 600 },
  verificationPerChallenge: { points: 10, durationSeconds: 600 },
  verificationPerAddress: { points: 30, durationSeconds: 60 },
};
