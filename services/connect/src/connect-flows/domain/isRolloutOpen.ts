/**
 * The project's connect roll-out, which comes before the client's capabilities
 * (decideFlowAllowed.ts): "nobody" closes every flow, "invited" opens them only for clients that
 * present a valid invitation, "everyone" for all.
 */
import type { ConnectRollout } from '../../projects/index.js';

export function isRolloutOpen(rollout: ConnectRollout, invited: boolean): boolean {
  if (rollout === 'nobody') return false;
  if (rollout === 'invited') return invited;
  return true;
}
