/**
 * Rate limits on creating and verifying challenges. Attempt limits stop guessing one challenge;
 * these stop flooding a user or an identifier with messages and spreading guesses across many
 * challenges or from one address. Each call counts one event and throws resource_exhausted
 * `rate_limited` (with the seconds until a retry can succeed) when a limit is over.
 */
export interface ChallengeRateLimits {
  /** One creation for the user and one for the (normalized) identifier, both within the project. */
  countCreation(projectId: string, userId: string, identifierValue: string): Promise<void>;
  /**
   * One verification of the challenge, one for its user, and one from the end user's address
   * ("" when unknown: not limited by address).
   */
  countVerification(projectId: string, challenge: { challengeId: string; userId: string }, clientAddress: string): Promise<void>;
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
  verificationPerUser: RateLimit;
  verificationPerAddress: RateLimit;
}

/** The defaults (documented in docs/api/challenges.md, "Rate limits"; main.ts reads overrides from the environment). */
export const DEFAULT_RATE_LIMITS: RateLimitConfig = {
  creationPerUser: { points: 5, durationSeconds: 600 },
  creationPerIdentifier: { points: 5, durationSeconds: 600 },
  verificationPerChallenge: { points: 10, durationSeconds: 600 },
  // With at most 5 wrong values per challenge (the project's maxChallengeAttempts), one user can
  // be guessed for at most 25 times in 10 minutes, however many challenges are created.
  verificationPerUser: { points: 25, durationSeconds: 600 },
  // Per end user (the address the challenge was created for), not per application server.
  verificationPerAddress: { points: 30, durationSeconds: 60 },
};
