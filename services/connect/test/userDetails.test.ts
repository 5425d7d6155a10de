/**
 * The signed-in user's details and identifiers (me/domain: updateMyName, deleteMyAccount,
 * addMyIdentifier, changeMyIdentifier, removeMyIdentifier) and the sign-up's identifier update and
 * verification status (auth-flows/domain: updateProcessIdentifier, getVerificationStatus) in
 * memory: real repositories on the embedded store, plain fakes of the ceremony and challenge ports.
 * The routes end to end: test/e2e/meDetails.test.ts and test/e2e/authIdentifierUpdate.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../runtime/errors.js';
import { newId } from '../../runtime/ids.js';
import { CAPABLE_BROWSER, FakeCeremonies, FakeOneTimeCodes, INCAPABLE_BROWSER } from '../../../test/kit/fakeCeremonyAndChallenge.js';
import type { AuthFlowDeps } from '../src/auth-flows/domain/authDeps.js';
import { finishIdentifierVerify } from '../src/auth-flows/domain/finishIdentifierVerify.js';
import { getVerificationStatus } from '../src/auth-flows/domain/getVerificationStatus.js';
import { initProcess } from '../src/auth-flows/domain/initProcess.js';
import { initSignup } from '../src/auth-flows/domain/initSignup.js';
import { startIdentifierVerify } from '../src/auth-flows/domain/startIdentifierVerify.js';
import { updateProcessIdentifier } from '../src/auth-flows/domain/updateProcessIdentifier.js';
import type { VerifyIdentifierData } from '../src/auth-flows/domain/blockTypes.js';
import type { FlowCall } from '../src/shared/domain/flowCall.js';
import { readProcessToken } from '../src/projects/domain/processTokens.js';
import type { ClientSnapshot } from '../src/shared/store/clientSnapshot.js';
import { addMyIdentifier } from '../src/me/domain/addMyIdentifier.js';
import { changeMyIdentifier } from '../src/me/domain/changeMyIdentifier.js';
import { deleteMyAccount } from '../src/me/domain/deleteMyAccount.js';
import { finishIdentifierVerification } from '../src/me/domain/finishIdentifierVerification.js';
import { getMe, getUserDetailsConfig, updateMyName } from '../src/me/domain/myDetails.js';
import { MAX_IDENTIFIERS_PER_TYPE } from '../src/users/domain/identifierLimits.js';
import type { MeCall, MeDeps } from '../src/me/domain/meDeps.js';
import { removeMyIdentifier } from '../src/me/domain/removeMyIdentifier.js';
import { startIdentifierVerification } from '../src/me/domain/startIdentifierVerification.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { startSession } from '../src/sessions/domain/startSession.js';
import type { IdentifierStatus, IdentifierType } from '../src/users/store/identifiers.js';
import { startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let ceremony: FakeCeremonies;
let codes: FakeOneTimeCodes;
let deps: MeDeps & AuthFlowDeps;
let A: string;
let B: string;

beforeAll(async () => {
  env = await startTestEnv();
  A = (await createProject(env.deps, { name: 'Details A', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
  B = (await createProject(env.deps, { name: 'Details B', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
});
afterAll(() => env?.close());
beforeEach(() => {
  ceremony = new FakeCeremonies();
  codes = new FakeOneTimeCodes();
  deps = { ...env.deps, ceremony, challenges: codes };
  env.cleanup.calls = [];
  env.cleanup.failWith = null;
});

async function rejection(p: Promise<unknown>): Promise<{ kind: string; type: string }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return { kind: err.kind, type: err.type };
}

/** A user with identifiers (in creation order) and an active session, straight in the stores; the call its session token makes. */
async function signedIn(projectId: string, identifiers: Array<[IdentifierType, string, IdentifierStatus?]>, fullName?: string): Promise<{ call: MeCall; ids: string[] }> {
  const now = new Date();
  const userId = newId('usr');
  await env.deps.users.insert({ _id: userId, projectId, status: 'active', ...(fullName ? { fullName } : {}), createdAt: now, updatedAt: now });
  const ids: string[] = [];
  for (const [i, [type, value, status]] of identifiers.entries()) {
    const at = new Date(now.getTime() + i);
    const id = newId('ide');
    await env.deps.identifiers.insert({ _id: id, projectId, userId, type, value, status: status ?? 'verified', source: 'self', claimed: (status ?? 'verified') !== 'pending', createdAt: at, updatedAt: at });
    ids.push(id);
  }
  const { sessionId } = await startSession(env.deps, { projectId, userId, withRefreshToken: true });
  return { call: { projectId, requestId: 'req-details', clientAddress: '192.0.2.1', userAgent: 'test', userId, sessionId }, ids };
}

const values = async (call: MeCall) => (await getMe(deps, call)).identifiers.map((i) => `${i.type}:${i.value}:${i.status}`);

describe('user-details config', () => {
  it('offers every identifier type sign-up accepts and requires no name', () => {
    expect(getUserDetailsConfig()).toEqual({ fullNameRequired: false, identifiers: [{ type: 'email' }, { type: 'phone' }, { type: 'username' }] });
  });
});

describe('updateMyName', () => {
  it('trims the name; blank removes it', async () => {
    const { call } = await signedIn(A, [['email', 'name@example.com']], 'Old');
    await updateMyName(deps, call, '  New Name  ');
    expect((await getMe(deps, call)).fullName).toBe('New Name');
    await updateMyName(deps, call, '   ');
    expect((await getMe(deps, call)).fullName).toBe('');
    expect((await env.deps.users.find(A, call.userId))?.fullName).toBeUndefined();
  });

  it("needs the user's active session in its own project", async () => {
    const { call } = await signedIn(A, [['email', 'name-guard@example.com']], 'Kept');
    expect(await rejection(updateMyName(deps, { ...call, projectId: B }, 'X'))).toEqual({ kind: 'unauthenticated', type: 'session_ended' });
    expect(await rejection(updateMyName(deps, { ...call, sessionId: '' }, 'X'))).toEqual({ kind: 'unauthenticated', type: 'session_token_required' });
    expect((await getMe(deps, call)).fullName).toBe('Kept');
  });
});

describe('addMyIdentifier', () => {
  it('stores the normalized value as pending', async () => {
    const { call } = await signedIn(A, [['email', 'add@example.com']]);
    const r = await addMyIdentifier(deps, call, { identifierType: 'phone', value: '+1 (202) 555-0143' });
    expect(r).toMatchObject({ type: 'phone', value: '+12025550143', status: 'pending', userId: call.userId, projectId: A });
    expect(await values(call)).toEqual(['email:add@example.com:verified', 'phone:+12025550143:pending']);
  });

  it('keeps to the per-type limit, also when adds race', async () => {
    const { call } = await signedIn(A, [['email', 'limit@example.com']]);
    const results = await Promise.allSettled(['one', 'two', 'three'].map((name) => addMyIdentifier(deps, call, { identifierType: 'username', value: `racer-${name}` })));
    expect(results.filter((r) => r.status === 'fulfilled').length).toBeLessThanOrEqual(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ kind: 'failed_precondition', type: 'identifier_limit_reached' });
    expect((await values(call)).filter((v) => v.startsWith('username:')).length).toBeLessThanOrEqual(1);
    for (let i = 1; i < MAX_IDENTIFIERS_PER_TYPE.email; i++) await addMyIdentifier(deps, call, { identifierType: 'email', value: `limit${i}@example.com` });
    expect(await rejection(addMyIdentifier(deps, call, { identifierType: 'email', value: 'one-too-many@example.com' }))).toEqual({ kind: 'failed_precondition', type: 'identifier_limit_reached' });
    expect((await values(call)).filter((v) => v.startsWith('email:'))).toHaveLength(MAX_IDENTIFIERS_PER_TYPE.email);
  });

  it('refuses a value the project has and a malformed one', async () => {
    await signedIn(A, [['email', 'owner@example.com']]);
    const { call } = await signedIn(A, [['email', 'adder2@example.com']]);
    expect(await rejection(addMyIdentifier(deps, call, { identifierType: 'email', value: 'OWNER@example.com' }))).toEqual({ kind: 'already_exists', type: 'identifier_already_exists' });
    expect(await rejection(addMyIdentifier(deps, call, { identifierType: 'email', value: 'owner' }))).toEqual({ kind: 'invalid_argument', type: 'validation_error' });
    expect(await rejection(addMyIdentifier(deps, call, { identifierType: 'fax', value: 'x' }))).toEqual({ kind: 'invalid_argument', type: 'validation_error' });
    expect(await values(call)).toEqual(['email:adder2@example.com:verified']);
  });
});

/** A pending user (an unfinished sign-up) holding the value, created `ageMs` ago. */
async function pendingSignup(projectId: string, type: IdentifierType, value: string, ageMs: number): Promise<string> {
  const at = new Date(Date.now() - ageMs);
  const userId = newId('usr');
  await env.deps.users.insert({ _id: userId, projectId, status: 'pending', createdAt: at, updatedAt: at });
  await env.deps.identifiers.insert({ _id: newId('ide'), projectId, userId, type, value, status: 'pending', source: 'self', claimed: false, createdAt: at, updatedAt: at });
  return userId;
}
const HOURS = 3600 * 1000;

describe('values held by an unfinished sign-up', () => {
  // Rewritten for #29: this used to assert that an abandoned sign-up's value was released (its user
  // deleted) and a running one's refused (409). An unproven value now blocks nobody: a signed-in
  // user may add or change to it, abandoned or running, and it stays pending and unclaimed until
  // proven; no user is deleted for it.
  it('do not block a signed-in user adding or changing to them, and nobody is deleted for it', async () => {
    const abandoned = await pendingSignup(A, 'email', 'abandoned@example.com', 2 * HOURS);
    const running = await pendingSignup(A, 'email', 'running@example.com', 60 * 1000);
    const { call, ids } = await signedIn(A, [['email', 'claimer@example.com']]);
    expect(await addMyIdentifier(deps, call, { identifierType: 'email', value: 'abandoned@example.com' })).toMatchObject({ status: 'pending', claimed: false });
    expect(await addMyIdentifier(deps, call, { identifierType: 'email', value: 'running@example.com' })).toMatchObject({ status: 'pending', claimed: false });
    await changeMyIdentifier(deps, call, { identifierId: ids[0]!, identifierType: 'email', value: 'old-signup@example.com' });
    for (const u of [abandoned, running]) expect(await env.deps.users.find(A, u)).not.toBeNull();
    expect(env.cleanup.calls).toEqual([]);
    expect(await values(call)).toEqual(['email:old-signup@example.com:pending', 'email:abandoned@example.com:pending', 'email:running@example.com:pending']);
    // Nobody holds them claimed: the sign-ups' and this user's are all assertions.
    expect(await env.deps.identifiers.findByValue(A, 'email', 'running@example.com')).toBeNull();
    expect(await env.deps.identifiers.listUnclaimedByValue(A, 'email', 'running@example.com', 10)).toHaveLength(2);
  });
});

describe('changeMyIdentifier', () => {
  it('a code sent to the old value does not verify the new one', async () => {
    const { call, ids } = await signedIn(A, [['email', 'before@example.com', 'pending']]);
    await startIdentifierVerification(deps, call, ids[0]!);
    expect(codes.sent[0]?.input.identifierValue).toBe('before@example.com');
    await changeMyIdentifier(deps, call, { identifierId: ids[0]!, identifierType: 'email', value: 'after@example.com' });
    expect(await rejection(finishIdentifierVerification(deps, call, { identifierId: ids[0]!, code: FakeOneTimeCodes.CODE }))).toEqual({ kind: 'failed_precondition', type: 'verification_not_started' });
    expect(await values(call)).toEqual(['email:after@example.com:pending']);
  });

  it("makes a verified identifier pending; refuses another type, another user's identifier and a taken value", async () => {
    const other = await signedIn(A, [['email', 'other-change@example.com']]);
    const { call, ids } = await signedIn(A, [['email', 'change@example.com'], ['username', 'changer']]);
    await changeMyIdentifier(deps, call, { identifierId: ids[1]!, identifierType: 'username', value: 'Changed' });
    expect(await values(call)).toEqual(['email:change@example.com:verified', 'username:changed:pending']);
    expect(await rejection(changeMyIdentifier(deps, call, { identifierId: ids[0]!, identifierType: 'username', value: 'x' }))).toEqual({ kind: 'invalid_argument', type: 'validation_error' });
    expect(await rejection(changeMyIdentifier(deps, call, { identifierId: other.ids[0]!, identifierType: 'email', value: 'x@example.com' }))).toEqual({ kind: 'not_found', type: 'identifier_not_found' });
    expect(await rejection(changeMyIdentifier(deps, call, { identifierId: ids[0]!, identifierType: 'email', value: 'other-change@example.com' }))).toEqual({ kind: 'already_exists', type: 'identifier_already_exists' });
    expect(await values(call)).toEqual(['email:change@example.com:verified', 'username:changed:pending']);
    expect(await values(other.call)).toEqual(['email:other-change@example.com:verified']);
  });
});

describe('removeMyIdentifier', () => {
  it('removes one but never the last; concurrent removals of the last two leave at least one', async () => {
    const { call, ids } = await signedIn(A, [['email', 'rm@example.com'], ['phone', '+4915100000010'], ['username', 'rm']]);
    await removeMyIdentifier(deps, call, ids[2]!);
    expect(await values(call)).toEqual(['email:rm@example.com:verified', 'phone:+4915100000010:verified']);
    const results = await Promise.allSettled([removeMyIdentifier(deps, call, ids[0]!), removeMyIdentifier(deps, call, ids[1]!)]);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ kind: 'failed_precondition', type: 'last_identifier' });
    const left = await values(call);
    expect(left.length).toBe(2 - results.filter((r) => r.status === 'fulfilled').length);
    expect(left.length).toBeGreaterThanOrEqual(1);
    // Both may have been refused (each put its own back); then one more goes alone.
    if (left.length === 2) await removeMyIdentifier(deps, call, (await getMe(deps, call)).identifiers[0]!.id);
    const last = (await getMe(deps, call)).identifiers;
    expect(last).toHaveLength(1);
    expect(await rejection(removeMyIdentifier(deps, call, last[0]!.id))).toEqual({ kind: 'failed_precondition', type: 'last_identifier' });
    expect(await rejection(removeMyIdentifier(deps, call, ids[2]!))).toEqual({ kind: 'not_found', type: 'identifier_not_found' });
  });
});

describe('deleteMyAccount', () => {
  it('deletes the user and identifiers, asks the other services to drop theirs, and revokes the session', async () => {
    const { call, ids } = await signedIn(A, [['email', 'gone@example.com'], ['username', 'gone']]);
    await deleteMyAccount(deps, call);
    expect(await env.deps.users.find(A, call.userId)).toBeNull();
    expect(await env.deps.identifiers.listForUser(A, call.userId)).toEqual([]);
    expect(env.cleanup.calls).toEqual([{ projectId: A, userId: call.userId }]);
    expect(await env.deps.sessions.findSession(A, call.sessionId)).toMatchObject({ status: 'revoked', revokeReason: 'user_unavailable' });
    expect(await rejection(getMe(deps, call))).toEqual({ kind: 'unauthenticated', type: 'session_ended' });
    // The values are free again.
    const again = await signedIn(A, [['email', 'gone@example.com']]);
    expect(again.ids[0]).not.toBe(ids[0]);
  });

  it('still deletes when the other services cannot be reached (their leftovers cannot be used without the user)', async () => {
    const { call } = await signedIn(A, [['email', 'gone2@example.com']]);
    env.cleanup.failWith = new Error('ceremony service down');
    await deleteMyAccount(deps, call);
    expect(await env.deps.users.find(A, call.userId)).toBeNull();
  });
});

describe('sign-up identifier update and verification status', () => {
  function callOf(processId?: string): FlowCall {
    return { projectId: A, requestId: 'req-update', clientAddress: '192.0.2.9', userAgent: 'test', ...(processId ? { processId } : {}) };
  }
  async function signUp(client: ClientSnapshot, identifiers: Array<{ type: string; identifier: string }>) {
    const r = await initProcess(deps, callOf(), { client, clientEnvHandle: undefined, preferredBlock: 'signup-init' });
    const call = callOf((await readProcessToken(deps, A, r.token))!);
    return { call, block: (await initSignup(deps, call, { identifiers })).block };
  }

  it('a corrected flow identifier is unproven: the old code is refused, a new one can be sent at once', async () => {
    const { call, block } = await signUp(INCAPABLE_BROWSER, [{ type: 'email', identifier: 'tpyo@example.com' }]);
    expect(block).toMatchObject({ block: 'email-verify', data: { identifier: 'tpyo@example.com' } });
    const r = await updateProcessIdentifier(deps, call, { identifierType: 'email', value: 'typo@example.com' });
    expect(r).toMatchObject({ block: 'email-verify', data: { identifier: 'typo@example.com', verificationMethod: 'email-otp' } });
    expect((r.data as VerifyIdentifierData).retryNotBefore).toBeUndefined();
    const process = await env.deps.authProcesses.find(A, call.processId!);
    expect(process).toMatchObject({ identifier: { value: 'typo@example.com' }, verified: false });
    expect(process?.challenge ?? null).toBeNull();
    expect(await rejection(finishIdentifierVerify(deps, call, { code: FakeOneTimeCodes.CODE, identifierType: 'email', verificationType: 'email-otp' }))).toEqual({ kind: 'invalid_argument', type: 'validation_error' });
    expect(codes.verified).toHaveLength(0);
  });

  it('keeps the way of verifying (an email link stays a link) for the corrected value', async () => {
    const { call } = await signUp(CAPABLE_BROWSER, [{ type: 'email', identifier: 'link.tpyo@example.com' }]);
    expect((await startIdentifierVerify(deps, call, { identifierType: 'email', verificationType: 'email-link' })).data).toMatchObject({ verificationMethod: 'email-link' });
    const r = await updateProcessIdentifier(deps, call, { identifierType: 'email', value: 'link.typo@example.com' });
    expect(r).toMatchObject({ block: 'email-verify', data: { verificationMethod: 'email-link', identifier: 'link.typo@example.com' } });
    // The new link can be sent at once, to the new address.
    await startIdentifierVerify(deps, call, { identifierType: 'email', verificationType: 'email-link' });
    expect(codes.sent.map((c) => [c.input.channel, c.input.identifierValue])).toEqual([
      ['email_link', 'link.tpyo@example.com'],
      ['email_link', 'link.typo@example.com'],
    ]);
  });

  // Rewritten for #29: this used to assert that the value of a sign-up still running was refused
  // and an abandoned one's taken over (its user deleted). Now neither blocks (both are unproven);
  // only a claimed value is refused (next test), and nobody is deleted.
  it('changes to a value other sign-ups only asserted, running or abandoned, deleting nobody', async () => {
    const abandoned = await pendingSignup(A, 'email', 'left.behind@example.com', 2 * HOURS);
    const running = await pendingSignup(A, 'email', 'still.running@example.com', 60 * 1000);
    const { call } = await signUp(INCAPABLE_BROWSER, [{ type: 'email', identifier: 'takeover@example.com' }]);
    expect((await updateProcessIdentifier(deps, call, { identifierType: 'email', value: 'still.running@example.com' })).data).toMatchObject({ identifier: 'still.running@example.com' });
    expect((await updateProcessIdentifier(deps, call, { identifierType: 'email', value: 'left.behind@example.com' })).data).toMatchObject({ identifier: 'left.behind@example.com' });
    for (const u of [abandoned, running]) expect(await env.deps.users.find(A, u)).not.toBeNull();
    expect(await env.deps.identifiers.listUnclaimedByValue(A, 'email', 'left.behind@example.com', 10)).toHaveLength(2);
    expect(await env.deps.identifiers.listUnclaimedByValue(A, 'email', 'still.running@example.com', 10)).toHaveLength(1);
  });

  it('answers a taken or malformed value in the block; a non-flow identifier changes alone', async () => {
    await signedIn(A, [['email', 'in.use@example.com']]);
    const { call } = await signUp(CAPABLE_BROWSER, [{ type: 'email', identifier: 'flow@example.com' }, { type: 'username', identifier: 'flowuser' }]);
    expect((await updateProcessIdentifier(deps, call, { identifierType: 'email', value: 'in.use@example.com' })).error).toEqual({ code: 'identifier_already_in_use', message: expect.any(String) });
    expect((await updateProcessIdentifier(deps, call, { identifierType: 'username', value: 'no spaces' })).error).toMatchObject({ code: 'identifier_invalid_format' });
    const before = await env.deps.authProcesses.find(A, call.processId!);
    const r = await updateProcessIdentifier(deps, call, { identifierType: 'username', value: 'flow.user' });
    expect(r).toMatchObject({ block: 'passkey-append', data: { identifierValue: 'flow@example.com' } });
    expect((await env.deps.authProcesses.find(A, call.processId!))?.identifier).toEqual(before?.identifier);
    const user = before!.userId!;
    expect((await env.deps.identifiers.listForUser(A, user)).map((i) => i.value).sort()).toEqual(['flow.user', 'flow@example.com']);
  });

  it('status: waiting in the verify block, email-link-verified after, process-already-completed at the end, expired is 410-style', async () => {
    const { call } = await signUp(INCAPABLE_BROWSER, [{ type: 'email', identifier: 'poll@example.com' }]);
    expect(await getVerificationStatus(deps, call)).toMatchObject({ block: 'email-verify', data: { identifier: 'poll@example.com' } });
    expect((await getVerificationStatus(deps, call)).continueOnOtherDevice).toBeUndefined();
    const done = await finishIdentifierVerify(deps, call, { code: FakeOneTimeCodes.CODE, identifierType: 'email', verificationType: 'email-otp' });
    expect(done.block).toBe('completed');
    expect((await getVerificationStatus(deps, call)).continueOnOtherDevice).toEqual({ reason: 'process-already-completed' });

    const { call: appending } = await signUp(CAPABLE_BROWSER, [{ type: 'email', identifier: 'poll2@example.com' }]);
    expect(await rejection(getVerificationStatus(deps, appending))).toEqual({ kind: 'failed_precondition', type: 'invalid_block' });
    await env.deps.authProcesses.advance(A, appending.processId!, ['passkey-append'], { verified: true }, new Date());
    expect((await getVerificationStatus(deps, appending)).continueOnOtherDevice).toEqual({ reason: 'email-link-verified' });
    const late = { ...deps, now: () => new Date(Date.now() + 2 * 3600 * 1000) };
    expect(await rejection(getVerificationStatus(late, appending))).toEqual({ kind: 'failed_precondition', type: 'process_expired' });
    expect(await rejection(getVerificationStatus(deps, callOf()))).toEqual({ kind: 'unauthenticated', type: 'process_token_required' });
    expect(await rejection(getVerificationStatus(deps, callOf('pro-1')))).toEqual({ kind: 'permission_denied', type: 'wrong_process' });
    expect(await rejection(getVerificationStatus(deps, { ...appending, projectId: B }))).toEqual({ kind: 'not_found', type: 'process_not_found' });
  });
});
