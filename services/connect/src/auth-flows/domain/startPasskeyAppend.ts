/** The passkey-append block's start: fresh attestation options for the user to add a passkey. */
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import type { Block } from './blockTypes.js';
import { offerAppend } from './offerAppend.js';
import { updateProcessClient } from './processClient.js';

/** `client`: the browser's newer description of itself, if the page sent one. */
export async function startPasskeyAppend(deps: AuthFlowDeps, call: FlowCall, client: ClientSnapshot | undefined): Promise<Block> {
  const process = await updateProcessClient(deps, await loadAuthProcess(deps, call, ['passkey-append']), client);
  return offerAppend(deps, call, process, ['passkey-append']);
}
