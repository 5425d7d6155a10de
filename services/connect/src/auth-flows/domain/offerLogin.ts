/**
 * The passkey-verify block with assertion options over the user's passkeys. It offers the code
 * verification of the identifier as its alternative where there is one.
 */
import type { AuthProcessRecord, BlockType } from '../store/authProcesses.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { advanceProcess } from './advanceProcess.js';
import { describeAuthClient } from './processClient.js';
import { buildPasskeyVerifyBlock } from './buildPasskeyVerifyBlock.js';
import type { Block } from './blockTypes.js';
import { buildVerifyAlternative } from './buildVerifyAlternative.js';

/** passkey-verify when the user has a passkey login here; null when not (the caller falls back to a code). */
export async function offerLogin(deps: AuthFlowDeps, call: FlowCall, process: AuthProcessRecord, from: readonly BlockType[]): Promise<Block | null> {
  const started = await deps.ceremony.startLogin(call, { userId: process.userId!, client: describeAuthClient(process, call), crossDeviceAuthenticationStrategy: 'standard', processId: process._id });
  if (!started.loginAllow) return null;
  const moved = await advanceProcess(deps, process, from, { block: 'passkey-verify' });
  return buildPasskeyVerifyBlock(
    { assertionOptions: started.assertionOptions, identifierValue: moved.identifier!.value, cda: started.decisionInsights?.isCdaCandidate ?? false },
    buildVerifyAlternative(moved),
  );
}
