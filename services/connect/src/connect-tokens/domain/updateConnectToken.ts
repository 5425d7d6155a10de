import { DomainError, failedPrecondition, notFound } from '../../../../runtime/errors.js';
import type { ConnectTokenRecord } from '../store/connectTokens.js';
import type { ConnectTokenDeps } from './connectTokenDeps.js';
import { checkConnectTokenStatus } from './connectTokenRules.js';

/** Races with a flow's consume/release can move a token between the two reads; a few rounds settle it. */
const MAX_ROUNDS = 3;

const missing = (id: string) => notFound('connect_token_not_found', `connect token ${id} does not exist`);

/**
 * Sets a connect token's status from the backend API. "consumed" revokes it: an initial token
 * becomes consumed, and one already consumed stays so (idempotent), in both cases losing its
 * claim so a flow that consumed it cannot release it back. "initial" is accepted only for a token
 * that is still initial (a no-op): a consumed token never becomes usable again.
 */
export async function updateConnectToken(deps: ConnectTokenDeps, input: { projectId: string; id: string; status: string }): Promise<ConnectTokenRecord> {
  const status = checkConnectTokenStatus(input.status);
  if (status === 'initial') {
    const token = await deps.connectTokens.find(input.projectId, input.id);
    if (!token) throw missing(input.id);
    if (token.status !== 'initial') {
      throw failedPrecondition('connect_token_consumed', `connect token ${input.id} is consumed and cannot become initial again; create a new one`);
    }
    return token;
  }
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const revoked =
      (await deps.connectTokens.setStatus(input.projectId, input.id, 'initial', 'consumed', deps.now())) ??
      (await deps.connectTokens.setStatus(input.projectId, input.id, 'consumed', 'consumed', deps.now()));
    if (revoked) return revoked;
    // Neither initial nor consumed at its moment: gone, or released (consumed → initial) between the two updates.
    if (!(await deps.connectTokens.find(input.projectId, input.id))) throw missing(input.id);
  }
  throw new DomainError('unavailable', 'connect_token_busy', `connect token ${input.id} kept changing while being revoked; try again`);
}
