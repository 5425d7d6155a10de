/**
 * F1: sign-up. The identifiers are checked one by one (a malformed value, a duplicate type, an
 * identifier an active user already has): problems come back in the signup-init block, each next
 * to its identifier, as the reference does, and nothing is stored. Otherwise the user is created
 * pending with pending identifiers (it becomes active when the process completes), and the next
 * block is passkey-append (with the code verification as alternative) or, where the browser said
 * it cannot create a passkey, the verification block. A pending user of a sign-up that was never
 * completed does not keep the identifier: a new sign-up replaces it.
 */
import { newId } from '../../../../runtime/ids.js';
import { DomainError } from '../../../../runtime/errors.js';
import type { IdentifierRecord } from '../../users/store/identifiers.js';
import type { UserRecord } from '../../users/store/users.js';
import { deleteUser } from '../../users/domain/deleteUser.js';
import { normalizeIdentifier } from '../../users/domain/identifierRules.js';
import type { IdentifierType } from '../../users/store/identifiers.js';
import type { FlowCall } from '../../connect-flows/domain/flowDeps.js';
import { AUTH_PROCESS_LIFETIME_SECONDS, type AuthFlowDeps } from './authDeps.js';
import { advanceProcess } from './advanceProcess.js';
import { canOfferAppend } from './canOfferAppend.js';
import { addFirstBlockSwitch } from './addFirstBlockSwitch.js';
import { buildSignupInitBlock } from './buildSignupInitBlock.js';
import { type Block, type RequestError } from './blockTypes.js';
import { offerAppend } from './offerAppend.js';
import { pickDefaultMethod } from './pickDefaultMethod.js';
import { sendCode } from './sendCode.js';
import { FIRST_BLOCKS, startAuthProcess, type StartedProcess } from './startAuthProcess.js';

export interface SignupInput {
  identifiers: { type: string; identifier: string }[];
  fullName?: string;
}

/** The identifier the flow runs on: email first (it can be verified and receives notices), then phone, then username. */
const PREFERENCE: IdentifierType[] = ['email', 'phone', 'username'];

export async function initSignup(deps: AuthFlowDeps, call: FlowCall, input: SignupInput): Promise<{ block: Block } & Pick<StartedProcess, 'newProcess'>> {
  const started = await startAuthProcess(deps, call, { authType: 'signup', block: 'signup-init' });
  const { process } = started;
  const fullName = input.fullName?.trim();

  const seen = new Set<string>();
  const checked: { type: string; identifier: string; normalized?: string; error?: RequestError }[] = [];
  for (const item of input.identifiers) {
    const entry: (typeof checked)[number] = { type: item.type, identifier: item.identifier };
    if (seen.has(item.type)) entry.error = { code: 'identifier_duplicate_type', message: `only one ${item.type} per sign-up` };
    else {
      seen.add(item.type);
      try {
        entry.normalized = normalizeIdentifier(item.type as IdentifierType, item.identifier);
        const taken = await deps.identifiers.findByValue(call.projectId, item.type as IdentifierType, entry.normalized);
        if (taken && !(await abandoned(deps, call, taken))) entry.error = { code: 'identifier_already_in_use', message: `this ${item.type} is already registered; log in instead` };
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        entry.error = { code: 'identifier_invalid', message: err.message.replace(/^identifierValue /, `${item.type} `) };
      }
    }
    checked.push(entry);
  }
  if (checked.some((c) => c.error)) {
    return { block: addFirstBlockSwitch(buildSignupInitBlock({ identifiers: checked, fullName })), ...(started.newProcess ? { newProcess: started.newProcess } : {}) };
  }

  const now = deps.now();
  const user: UserRecord = { _id: newId('usr'), projectId: call.projectId, status: 'pending', ...(fullName ? { fullName } : {}), createdAt: now, updatedAt: now };
  await deps.users.insert(user);
  const records: IdentifierRecord[] = [];
  for (const c of checked) {
    const record: IdentifierRecord = { _id: newId('ide'), projectId: call.projectId, userId: user._id, type: c.type as IdentifierType, value: c.normalized!, status: 'pending', source: 'self', claimed: false, createdAt: now, updatedAt: now };
    if ((await deps.identifiers.insert(record)) === 'duplicate') {
      // Another sign-up took it between the check and now: undo ours and say so.
      for (const r of records) await deps.identifiers.delete(call.projectId, user._id, r._id);
      await deps.users.delete(call.projectId, user._id);
      const raced = checked.map((x) => (x === c ? { ...x, error: { code: 'identifier_already_in_use', message: `this ${c.type} is already registered; log in instead` } } : x));
      return { block: addFirstBlockSwitch(buildSignupInitBlock({ identifiers: raced, fullName })), ...(started.newProcess ? { newProcess: started.newProcess } : {}) };
    }
    records.push(record);
  }
  const main = PREFERENCE.map((t) => records.find((r) => r.type === t)).find(Boolean)!;
  // Record the user on the process first, so the block steps below find it.
  const stored = await advanceProcess(deps, process, FIRST_BLOCKS, {
    authType: 'signup',
    userId: user._id,
    identifier: { id: main._id, type: main.type, value: main.value },
    identifierIds: records.map((r) => r._id),
  });

  let block: Block;
  const method = pickDefaultMethod(stored);
  if (canOfferAppend(stored) || !method) block = await offerAppend(deps, call, stored, FIRST_BLOCKS);
  else block = await sendCode(deps, call, stored, FIRST_BLOCKS, method);
  return { block, ...(started.newProcess ? { newProcess: started.newProcess } : {}) };
}

/**
 * A pending user whose sign-up was abandoned gives its identifier up: its process expired without
 * completing (a sign-up still running in another tab keeps it).
 */
async function abandoned(deps: AuthFlowDeps, call: FlowCall, taken: IdentifierRecord): Promise<boolean> {
  const owner = await deps.users.find(call.projectId, taken.userId);
  if (!owner || owner.status !== 'pending') return false;
  if (owner.createdAt.getTime() > deps.now().getTime() - AUTH_PROCESS_LIFETIME_SECONDS * 1000) return false;
  await deleteUser(deps, call.projectId, owner._id);
  return true;
}
