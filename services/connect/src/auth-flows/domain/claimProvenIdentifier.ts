/**
 * Whoever proves a value takes it. A code the challenge service sent to `value` was entered: the
 * identifier becomes verified and claimed, in one update guarded on the identifier still holding
 * that value (a value changed after the code went out stays unproven) and still being pending;
 * the project's unique index of claimed values refuses the claim when somebody else proved the
 * value first or the application vouched for it ('taken'). Then the unproven holders lose the
 * value: every other unclaimed identifier of it is removed, and a holder left as an abandoned
 * sign-up is released (releaseAbandonedSignup.ts).
 *
 * Shared by the sign-up and login code step (finishIdentifierVerify.ts) and the signed-in user's
 * verification (me/domain/finishIdentifierVerification.ts).
 */
import type { ServiceCall } from '../../shared/domain/passkeyCeremonies.js';
import type { IdentifierType } from '../../users/index.js';
import type { AuthFlowDeps } from './authDeps.js';
import { releaseAbandonedSignup, type ReleaseDeps } from './releaseAbandonedSignup.js';

export interface IdentifierProof {
  userId: string;
  identifierId: string;
  type: IdentifierType;
  /** The value the code was sent to. */
  value: string;
}

/** How many unproven holders of one value are released one by one (the removal itself takes them all). */
const RELEASE_AT_MOST = 20;

/**
 * 'claimed': the identifier holds the value, proven and claimed (now or already); 'taken': another
 * user holds the value claimed; 'changed': the identifier no longer holds the value (or is gone).
 */
export async function claimProvenIdentifier(deps: ReleaseDeps & Pick<AuthFlowDeps, 'logger'>, call: ServiceCall, proof: IdentifierProof): Promise<'claimed' | 'taken' | 'changed'> {
  const { projectId } = call;
  const claimed = await deps.identifiers.updateStatus(projectId, proof.userId, proof.identifierId, { status: 'verified', claimed: true }, deps.now(), { from: 'pending', value: proof.value });
  if (claimed === 'duplicate') return 'taken';
  if (!claimed) {
    // Not pending: verified or primary already (a login's code for a proven identifier), or changed.
    const current = (await deps.identifiers.listForUser(projectId, proof.userId)).find((i) => i._id === proof.identifierId);
    if (!current) {
      // Gone: the application vouched for the value on another user meanwhile, which removes every
      // assertion of it (users/domain/createIdentifier.ts), or the user removed it.
      const holder = await deps.identifiers.findByValue(projectId, proof.type, proof.value);
      return holder && holder.userId !== proof.userId ? 'taken' : 'changed';
    }
    if (current.value !== proof.value || !current.claimed) return 'changed';
  }
  const losers = await deps.identifiers.listUnclaimedByValue(projectId, proof.type, proof.value, RELEASE_AT_MOST);
  await deps.identifiers.deleteUnclaimedByValue(projectId, proof.type, proof.value);
  for (const userId of new Set(losers.map((l) => l.userId).filter((u) => u !== proof.userId))) {
    try {
      await releaseAbandonedSignup(deps, call, userId);
    } catch (err) {
      // The value is taken either way; an abandoned sign-up's other assertions are tidied later or never (they are powerless).
      deps.logger.warn({ err, projectId, userId }, 'could not release an abandoned sign-up that lost a value to a proof');
    }
  }
  return 'claimed';
}
