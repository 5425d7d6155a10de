import { notFound } from '../../../../runtime/errors.js';
import type { ConnectTokenDeps } from './connectTokenDeps.js';

/** Deletes a connect token of the project; a flow holding it then fails as with an unknown secret. */
export async function deleteConnectToken(deps: Pick<ConnectTokenDeps, 'connectTokens'>, input: { projectId: string; id: string }): Promise<void> {
  if (!(await deps.connectTokens.delete(input.projectId, input.id))) {
    throw notFound('connect_token_not_found', `connect token ${input.id} does not exist`);
  }
}
