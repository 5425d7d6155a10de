/**
 * The passkey-append block with fresh attestation options (after sign-up, or after a login without
 * passkeys). It offers the code verification of the identifier as its alternative where there is one.
 */
import type { AuthProcessRecord, BlockType } from '../store/authProcesses.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { advanceProcess } from './advanceProcess.js';
import { describeAuthClient } from './processClient.js';
import { buildPasskeyAppendBlock } from './buildPasskeyAppendBlock.js';
import type { Block } from './blockTypes.js';
import { buildVerifyAlternative } from './buildVerifyAlternative.js';

export async function offerAppend(deps: AuthFlowDeps, call: FlowCall, process: AuthProcessRecord, from: readonly BlockType[]): Promise<Block> {
  const identifier = process.identifier!;
  const started = await deps.ceremony.startAppend(call, {
    userId: process.userId!,
    processId: process._id,
    username: identifier.value,
    client: describeAuthClient(process, call),
    // The page shows the append as a step of the flow; the user decides there (or skips).
    forcePasskeyAppend: true,
    situation: 'default',
  });
  const moved = await advanceProcess(deps, process, from, { block: 'passkey-append' });
  const variant = started.decisionInsights?.variant;
  return buildPasskeyAppendBlock(
    moved.authType,
    { attestationOptions: started.attestationOptions, identifierValue: identifier.value, identifierType: identifier.type, ...(variant ? { variant } : {}) },
    moved.verified ? [] : buildVerifyAlternative(moved),
  );
}
