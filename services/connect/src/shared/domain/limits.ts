/**
 * Lifetimes of what a project's signing key signs for several features; a retired key stays
 * published until the longest of them has passed (projects/domain/rotateSigningKey.ts).
 */

/**
 * How long connect processes live. A login process carries the conditional-UI challenge, whose
 * ceremony session lives five minutes, so the process (and the web SDK's cached init answer)
 * must not outlive it; append and management processes only hold a token claim.
 */
export const PROCESS_LIFETIME_SECONDS: Record<'login' | 'append' | 'manage', number> = {
  login: 300,
  append: 900,
  manage: 900,
};

/** An invitation (a token for `project issue-invitation`) lives at most a year. */
export const MAX_INVITATION_DAYS = 365;
