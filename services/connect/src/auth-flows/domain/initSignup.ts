/**
 * F1: sign-up. The identifiers are checked one by one (a malformed value, a duplicate type, a
 * value somebody holds claimed: proven by its owner or vouched for by the application): problems
 * come back in the signup-init block, each next to its identifier, as the reference does, and
 * nothing is stored. Otherwise the user is created pending (origin "signup"; it becomes active
 * when the process completes) with pending, unclaimed identifiers, and the next block is
 * passkey-append (with the code verification as alternative) or, where the browser said it cannot
 * create a passkey, the verification block.
 *
 * A value only unclaimed holders have (another sign-up that asserted it, finished or not, and
 * never proved it) does not block: several may assert a value, it belongs to nobody until a code
 * sent to it is entered (claimProvenIdentifier.ts), and then the others lose it. A sign-up that
 * completes with a passkey alone keeps its identifiers unclaimed: the user logs in with the
 * passkey, and a typed identifier logs in only once proven.
 */
import { newId } from '../../../../runtime/ids.js';
import { DomainError } from '../../../../runtime/errors.js';
import { normalizeIdentifier, type IdentifierRecord, type IdentifierType, type UserRecord } from '../../users/index.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import { advanceProcess } from './advanceProcess.js';
import { canOfferAppend, pickDefaultMethod } from './processRules.js';
import { addFirstBlockSwitch } from './addFirstBlockSwitch.js';
import { buildSignupInitBlock } from './buildSignupInitBlock.js';
import { type Block, type RequestError } from './blockTypes.js';
import { offerAppend } from './offerAppend.js';
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
        if (taken) entry.error = { code: 'identifier_already_in_use', message: `this ${item.type} is already registered; log in instead` };
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
  // Not an account until the sign-up completes (openSignup): no event now, user.created then.
  const user: UserRecord = { _id: newId('usr'), projectId: call.projectId, status: 'pending', origin: 'signup', openSignup: true, ...(fullName ? { fullName } : {}), createdAt: now, updatedAt: now };
  await deps.users.insert(user);
  const records: IdentifierRecord[] = [];
  for (const c of checked) {
    const record: IdentifierRecord = { _id: newId('ide'), projectId: call.projectId, userId: user._id, type: c.type as IdentifierType, value: c.normalized!, status: 'pending', source: 'self', claimed: false, createdAt: now, updatedAt: now };
    // Unclaimed, so outside the unique index: a value claimed since the check is settled when
    // this sign-up proves it (the claim is then refused), not here.
    await deps.identifiers.insert(record);
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
