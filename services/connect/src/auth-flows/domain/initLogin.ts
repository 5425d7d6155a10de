/**
 * F2: login with an identifier. A malformed or unknown identifier comes back as the login-init
 * block with fieldError (the page shows it next to the field); nothing else is revealed. A known
 * user gets passkey-verify when a passkey login is possible (with the code as alternative), else
 * the code is sent at once and the verification block follows. Usernames have no code, so a user
 * known only by username without a passkey gets fieldError.
 */
import type { FlowCall } from '../../shared/domain/flowCall.js';
import { classifyIdentifier, findUserByIdentifier, normalizeIdentifier, type IdentifierType } from '../../users/index.js';
import type { AuthFlowDeps } from './authDeps.js';
import { advanceProcess } from './advanceProcess.js';
import { addFirstBlockSwitch } from './addFirstBlockSwitch.js';
import { buildLoginInitBlock } from './buildLoginInitBlock.js';
import type { Block } from './blockTypes.js';
import { offerLogin } from './offerLogin.js';
import { pickDefaultMethod } from './processRules.js';
import { sendCode } from './sendCode.js';
import { FIRST_BLOCKS, startAuthProcess, type StartedProcess } from './startAuthProcess.js';

export async function initLogin(deps: AuthFlowDeps, call: FlowCall, input: { identifierValue: string; isPhone: boolean }): Promise<{ block: Block } & Pick<StartedProcess, 'newProcess'>> {
  const started = await startAuthProcess(deps, call, { authType: 'login', block: 'login-init' });
  const withNew = (block: Block) => ({ block, ...(started.newProcess ? { newProcess: started.newProcess } : {}) });
  const fieldError = (code: string, message: string) => withNew(addFirstBlockSwitch(buildLoginInitBlock({ identifierValue: input.identifierValue, isPhone: input.isPhone, fieldError: { code, message } })));

  const identifier = input.isPhone ? phone(input.identifierValue) : classifyIdentifier(input.identifierValue);
  if (!identifier) return fieldError('identifier_invalid', input.isPhone ? 'enter a phone number in E.164 format (e.g. +4915112345678)' : 'enter an email address, phone number or username');
  const user = await findUserByIdentifier(deps, call.projectId, identifier);
  if (!user || user.status === 'disabled') return fieldError('identifier_not_found', 'no account with this identifier; sign up instead');
  const record = await deps.identifiers.findByValue(call.projectId, identifier.type, identifier.value);

  const process = await advanceProcess(deps, started.process, FIRST_BLOCKS, {
    authType: 'login',
    userId: user._id,
    identifier: { id: record!._id, type: identifier.type, value: identifier.value },
  });
  const passkey = await offerLogin(deps, call, process, FIRST_BLOCKS);
  if (passkey) return withNew(passkey);
  const method = pickDefaultMethod(process);
  if (!method) return fieldError('passkey_required', 'this account logs in with a passkey only, and none is available here');
  return withNew(await sendCode(deps, call, process, FIRST_BLOCKS, method));
}

function phone(value: string): { type: IdentifierType; value: string } | null {
  try {
    return { type: 'phone', value: normalizeIdentifier('phone', value) };
  } catch {
    return null;
  }
}
