/** The passkey-verify block's start: fresh assertion options for the user's passkeys. */
import { failedPrecondition } from '../../../../runtime/errors.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import type { Block } from './blockTypes.js';
import { offerLogin } from './offerLogin.js';
import { updateProcessClient } from './processClient.js';

/** `client`: the browser's newer description of itself, if the page sent one. */
export async function startPasskeyLogin(deps: AuthFlowDeps, call: FlowCall, client: ClientSnapshot | undefined): Promise<Block> {
  const process = await updateProcessClient(deps, await loadAuthProcess(deps, call, ['passkey-verify']), client);
  const block = await offerLogin(deps, call, process, ['passkey-verify']);
  if (!block) throw failedPrecondition('passkey_login_unavailable', 'no passkey login is possible for this user here; use the code instead');
  return block;
}
