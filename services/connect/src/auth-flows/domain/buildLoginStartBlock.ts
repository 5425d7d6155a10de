/**
 * The login-init block a process starts with: with a conditional-UI challenge when the browser said
 * it supports passkey autofill and the ceremony service allows a login here, and with sign-up as
 * its alternative (addFirstBlockSwitch.ts).
 */
import type { AuthProcessRecord } from '../store/authProcesses.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { addFirstBlockSwitch } from './addFirstBlockSwitch.js';
import type { Block } from './blockTypes.js';
import { buildLoginInitBlock } from './buildLoginInitBlock.js';
import { describeAuthClient } from './processClient.js';

export async function buildLoginStartBlock(deps: AuthFlowDeps, call: FlowCall, process: AuthProcessRecord): Promise<Block> {
  let conditionalUIChallenge: string | undefined;
  if (process.client?.conditionalMediationAvailable) {
    const m = await deps.ceremony.startMediation(call, { client: describeAuthClient(process, call), processId: process._id });
    if (m.loginAllow) conditionalUIChallenge = m.assertionOptions;
  }
  return addFirstBlockSwitch(buildLoginInitBlock({ identifierValue: '', isPhone: false, ...(conditionalUIChallenge ? { conditionalUIChallenge } : {}) }));
}
