/**
 * POST /v2/auth/identifier/update: a sign-up corrects one of its identifiers before it completes,
 * from the verification block ("wrong address? change it") or the passkey-append block. The user
 * and identifiers of a sign-up are pending until the process completes, so the correction changes
 * the pending identifier itself.
 *
 * A value that is malformed or already registered (claimed: proven by its owner or vouched for by
 * the application; an unproven assertion of it blocks nobody) keeps the block and answers it with
 * error, as the reference does (codes the web SDK translates: identifier_invalid_format,
 * identifier_already_in_use). A changed flow identifier is unproven again: the process forgets
 * that it was verified, the proof and the code it sent (which went to the old value and must not
 * prove the new one), so the page sends a new code at once. A login cannot change identifiers:
 * they belong to an existing account, and a mistyped one is corrected by starting the login again.
 *
 * One guarded change of the identifier and the process: the identifier's value changes only from
 * the value read (a concurrent update or proof of it wins), then the process only while it still
 * runs on the old value. If the process step loses (a code step moved it meanwhile), the
 * identifier gets its old value back; either way every proof compares the value it proved with
 * the value at the moment it writes (claimProvenIdentifier.ts), so the new value is never marked
 * verified by a code sent to the old one.
 */
import { DomainError, failedPrecondition, invalidArgument } from '../../../../runtime/errors.js';
import { checkIdentifierType, normalizeIdentifier } from '../../users/index.js';
import type { AuthProcessRecord, BlockType, VerificationMethod } from '../store/authProcesses.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import type { AuthFlowDeps } from './authDeps.js';
import type { Block, RequestError } from './blockTypes.js';
import { buildVerifyBlock } from './buildVerifyBlock.js';
import { VERIFY_BLOCKS } from './finishIdentifierVerify.js';
import { loadAuthProcess } from './loadAuthProcess.js';
import { offerAppend } from './offerAppend.js';
import { pickDefaultMethod } from './processRules.js';

const UPDATE_FROM: readonly BlockType[] = [...VERIFY_BLOCKS, 'passkey-append'];

export async function updateProcessIdentifier(deps: AuthFlowDeps, call: FlowCall, input: { identifierType: string; value: string }): Promise<Block> {
  const type = checkIdentifierType(input.identifierType);
  const process = await loadAuthProcess(deps, call, UPDATE_FROM);
  if (process.authType !== 'signup') throw failedPrecondition('identifier_update_not_allowed', 'only a sign-up can change its identifiers; start the login again with the right identifier');
  const ids = process.identifierIds ?? [];
  const identifier = (await deps.identifiers.listForUser(call.projectId, process.userId!)).find((i) => i.type === type && ids.includes(i._id));
  if (!identifier) {
    throw invalidArgument('validation_error', `this sign-up has no ${type} to change`, [{ field: 'identifierType', message: `the sign-up has no ${type}` }]);
  }

  let value: string;
  try {
    value = normalizeIdentifier(type, input.value);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return currentBlock(deps, call, process, { code: 'identifier_invalid_format', message: err.message.replace(/^identifierValue /, `${type} `) });
  }
  if (value === identifier.value) return currentBlock(deps, call, process);
  const inUse = () => currentBlock(deps, call, process, { code: 'identifier_already_in_use', message: `this ${type} is already registered; log in instead` });
  if (await deps.identifiers.findByValue(call.projectId, type, value)) return inUse();
  const changed = () => failedPrecondition('invalid_block', 'the sign-up changed in the meantime; reload it');
  // Unclaimed: the unique index of claimed values is not involved, so 'duplicate' cannot come back.
  // Guarded on the value and claim read: a proof of the old value that landed meanwhile wins (and
  // is kept: the restore below never undoes a claim it did not see).
  const updated = await deps.identifiers.updateValue(call.projectId, process.userId!, identifier._id, { value, status: 'pending', claimed: false }, deps.now(), {
    value: identifier.value,
    claimed: identifier.claimed,
  });
  if (updated === 'duplicate') return inUse();
  if (updated === 'missing') throw changed();

  if (process.identifier?.id !== identifier._id) return currentBlock(deps, call, process);
  // `challenge: undefined` and `proof: undefined` are stored as null: no code of this process counts any more.
  const moved = await deps.authProcesses.advance(
    call.projectId,
    process._id,
    [process.block],
    { identifier: { id: identifier._id, type, value }, verified: false, proof: undefined, challenge: undefined },
    deps.now(),
    { identifierValue: identifier.value },
  );
  if (!moved) {
    // The process moved on from the old value meanwhile: the identifier goes back to it, as it was.
    const back = { value: identifier.value, status: identifier.status, claimed: identifier.claimed };
    await deps.identifiers.updateValue(call.projectId, process.userId!, identifier._id, back, deps.now(), { value, claimed: false });
    throw changed();
  }
  // The page keeps its way of verifying (code or link) for the new value.
  return currentBlock(deps, call, moved, undefined, process.challenge?.method);
}

/** The block the process is in, rebuilt with its current identifier (and an error, when the update was refused). */
async function currentBlock(deps: AuthFlowDeps, call: FlowCall, process: AuthProcessRecord, error?: RequestError, previousMethod?: VerificationMethod): Promise<Block> {
  if (process.block === 'passkey-append') {
    // Fresh attestation options: the passkey's user name is the identifier, which may have changed.
    const block = await offerAppend(deps, call, process, ['passkey-append']);
    return error ? { ...block, error, data: block.data.blockType === 'passkey-append' ? { ...block.data, error } : block.data } : block;
  }
  const method = process.challenge?.method ?? previousMethod ?? pickDefaultMethod(process) ?? 'email-otp';
  return buildVerifyBlock(process.authType, { method, identifier: process.identifier!.value, ...(error ? { error } : {}) });
}
