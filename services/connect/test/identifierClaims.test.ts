/**
 * Issue #29 items 3, 4 and 6 in memory: a proof binds to the value it proved, an unproven
 * identifier neither blocks a sign-up nor logs anyone in, and only abandoned sign-ups are released.
 * Races are made deterministic with the fake challenge port's `whileVerifying` hook (it runs after
 * the code was accepted and before the caller hears so) and a wrapped identifier store. The same
 * attacks over HTTP against the whole stack: test/attacks/identifierClaims.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../runtime/errors.js';
import { newId } from '../../runtime/ids.js';
import { CAPABLE_BROWSER, FakeCeremonies, FakeOneTimeCodes, INCAPABLE_BROWSER, passkey } from '../../../test/kit/fakeCeremonyAndChallenge.js';
import type { AuthFlowDeps } from '../src/auth-flows/domain/authDeps.js';
import { claimProvenIdentifier } from '../src/auth-flows/domain/claimProvenIdentifier.js';
import { finishIdentifierVerify } from '../src/auth-flows/domain/finishIdentifierVerify.js';
import { finishPasskeyAppend } from '../src/auth-flows/domain/finishPasskeyAppend.js';
import { finishProcess } from '../src/auth-flows/domain/finishProcess.js';
import { initLogin } from '../src/auth-flows/domain/initLogin.js';
import { initProcess } from '../src/auth-flows/domain/initProcess.js';
import { initSignup } from '../src/auth-flows/domain/initSignup.js';
import { releaseAbandonedSignup } from '../src/auth-flows/domain/releaseAbandonedSignup.js';
import { skipBlock } from '../src/auth-flows/domain/skipBlock.js';
import { startIdentifierVerify } from '../src/auth-flows/domain/startIdentifierVerify.js';
import { updateProcessIdentifier } from '../src/auth-flows/domain/updateProcessIdentifier.js';
import type { SignupInitData } from '../src/auth-flows/domain/blockTypes.js';
import type { FlowCall } from '../src/shared/domain/flowCall.js';
import { readProcessToken } from '../src/projects/domain/processTokens.js';
import type { ClientSnapshot } from '../src/shared/store/clientSnapshot.js';
import { addMyIdentifier } from '../src/me/domain/addMyIdentifier.js';
import { changeMyIdentifier } from '../src/me/domain/changeMyIdentifier.js';
import { finishIdentifierVerification } from '../src/me/domain/finishIdentifierVerification.js';
import type { MeCall, MeDeps } from '../src/me/domain/meDeps.js';
import { startIdentifierVerification } from '../src/me/domain/startIdentifierVerification.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { startSession } from '../src/sessions/domain/startSession.js';
import { createIdentifier } from '../src/users/domain/createIdentifier.js';
import { createUser } from '../src/users/domain/createUser.js';
import type { IdentifierStore } from '../src/users/store/identifiers.js';
import { startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let ceremony: FakeCeremonies;
let codes: FakeOneTimeCodes;
let deps: MeDeps & AuthFlowDeps & Pick<TestEnv['deps'], 'events'>;
let A: string;
const HOURS = 3600 * 1000;

beforeAll(async () => {
  env = await startTestEnv();
  A = (await createProject(env.deps, { name: 'Claims', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
});
afterAll(() => env?.close());
beforeEach(() => {
  ceremony = new FakeCeremonies();
  codes = new FakeOneTimeCodes();
  deps = { ...env.deps, ceremony, challenges: codes };
});

function callOf(processId?: string): FlowCall {
  return { projectId: A, requestId: 'req-claims', clientAddress: '192.0.2.7', userAgent: 'test', ...(processId ? { processId } : {}) };
}

async function start(client: ClientSnapshot, preferredBlock: string): Promise<FlowCall> {
  const r = await initProcess(deps, callOf(), { client, clientEnvHandle: undefined, preferredBlock });
  return callOf((await readProcessToken(deps, A, r.token))!);
}

/** A sign-up up to its first block; the call that continues it and its pending user. */
async function signUp(client: ClientSnapshot, email: string) {
  const call = await start(client, 'signup-init');
  const { block } = await initSignup(deps, call, { identifiers: [{ type: 'email', identifier: email }] });
  const process = await deps.authProcesses.find(A, call.processId!);
  return { call, block, userId: process?.userId ?? '' };
}

const code = (call: FlowCall) => finishIdentifierVerify(deps, call, { code: FakeOneTimeCodes.CODE, identifierType: 'email', verificationType: 'email-otp' });

async function rejection(p: Promise<unknown>): Promise<{ kind: string; type: string }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return { kind: err.kind, type: err.type };
}

/** An active user with a verified (claimed) email and a session; the call its session token makes. */
async function signedIn(email: string): Promise<{ call: MeCall; identifierId: string }> {
  const now = new Date();
  const userId = newId('usr');
  await env.deps.users.insert({ _id: userId, projectId: A, status: 'active', origin: 'signup', createdAt: now, updatedAt: now });
  const identifierId = newId('ide');
  await env.deps.identifiers.insert({ _id: identifierId, projectId: A, userId, type: 'email', value: email, status: 'verified', source: 'self', claimed: true, createdAt: now, updatedAt: now });
  const { sessionId } = await startSession(env.deps, { projectId: A, userId, withRefreshToken: true });
  return { call: { projectId: A, requestId: 'req-me', clientAddress: '192.0.2.8', userAgent: 'test', userId, sessionId }, identifierId };
}

const holders = async (email: string) =>
  (await env.store.db.collection('identifiers').find({ projectId: A, type: 'email', value: email }).toArray()).map((i) => ({ userId: i.userId, status: i.status, claimed: i.claimed }));

describe('a proof binds to the value it proved (item 3)', () => {
  it('identifier/update racing the code step: the code sent to the old address verifies neither address', async () => {
    const { call, userId } = await signUp(INCAPABLE_BROWSER, 'attacker@claims.example');
    expect(codes.sent[0]!.input.identifierValue).toBe('attacker@claims.example');
    // While the challenge service accepts the attacker's code, the sign-up switches to the victim's address.
    codes.whileVerifying = async () => {
      await updateProcessIdentifier(deps, call, { identifierType: 'email', value: 'victim@claims.example' });
    };
    expect(await rejection(code(call))).toEqual({ kind: 'failed_precondition', type: 'invalid_block' });
    expect(await holders('victim@claims.example')).toEqual([{ userId, status: 'pending', claimed: false }]);
    expect(await deps.identifiers.findByValue(A, 'email', 'victim@claims.example')).toBeNull();
    expect(await deps.authProcesses.find(A, call.processId!)).toMatchObject({ verified: false, proof: null, identifier: { value: 'victim@claims.example' } });
    // Nothing the attacker holds completes the sign-up on the victim's address.
    expect(await rejection(finishProcess(deps, call))).toMatchObject({ kind: 'failed_precondition' });
  });

  it('identifier/update losing to a step that moved the process: the identifier gets its old value back', async () => {
    const { call, userId } = await signUp(CAPABLE_BROWSER, 'keep@claims.example');
    const identifiers: IdentifierStore = {
      ...env.deps.identifiers,
      // Between the identifier's change and the process's, the passkey append finishes.
      updateValue: async (...args) => {
        const r = await env.deps.identifiers.updateValue(...args);
        if (args[3].value === 'other@claims.example') await finishPasskeyAppend(deps, call, '{"id":"att"}');
        return r;
      },
    };
    expect(await rejection(updateProcessIdentifier({ ...deps, identifiers }, call, { identifierType: 'email', value: 'other@claims.example' }))).toEqual({ kind: 'failed_precondition', type: 'invalid_block' });
    expect((await deps.identifiers.listForUser(A, userId)).map((i) => [i.value, i.status, i.claimed])).toEqual([['keep@claims.example', 'pending', false]]);
    expect(await deps.authProcesses.find(A, call.processId!)).toMatchObject({ block: 'passkey-appended', identifier: { value: 'keep@claims.example' } });
  });

  it('identifier/update losing to the proof of the old value: the proof stands, the update is refused', async () => {
    const { call, userId } = await signUp(INCAPABLE_BROWSER, 'proven.first@claims.example');
    const identifiers: IdentifierStore = {
      ...env.deps.identifiers,
      // After the update read the identifier and before it changes it, the code for the old value is entered.
      updateValue: async (...args) => {
        if (args[3].value === 'too.late@claims.example') expect((await code(call)).block).toBe('completed');
        return env.deps.identifiers.updateValue(...args);
      },
    };
    expect(await rejection(updateProcessIdentifier({ ...deps, identifiers }, call, { identifierType: 'email', value: 'too.late@claims.example' }))).toEqual({ kind: 'failed_precondition', type: 'invalid_block' });
    expect(await holders('proven.first@claims.example')).toEqual([{ userId, status: 'verified', claimed: true }]);
    expect(await holders('too.late@claims.example')).toEqual([]);
  });

  it('a proven address changed afterwards is unproven again, and the completion no longer counts the proof', async () => {
    const { call, userId } = await signUp(CAPABLE_BROWSER, 'first@claims.example');
    await startIdentifierVerify(deps, call, { identifierType: 'email', verificationType: 'email-otp' });
    // The code proves first@: claimed; no passkey yet, so the append is offered.
    expect(await code(call)).toMatchObject({ block: 'passkey-append' });
    expect(await holders('first@claims.example')).toEqual([{ userId, status: 'verified', claimed: true }]);
    await updateProcessIdentifier(deps, call, { identifierType: 'email', value: 'second@claims.example' });
    expect(await holders('second@claims.example')).toEqual([{ userId, status: 'pending', claimed: false }]);
    // Skipping the append does not complete on the old proof: a code for the new address is sent.
    expect(await skipBlock(deps, call)).toMatchObject({ block: 'email-verify', data: { identifier: 'second@claims.example' } });
    expect(codes.sent.at(-1)!.input.identifierValue).toBe('second@claims.example');
  });

  it('PATCH /v2/me/identifier racing /v2/me verify/finish: the new address stays pending and unclaimed', async () => {
    const { call, identifierId } = await signedIn('me-owner@claims.example');
    const added = await addMyIdentifier(deps, call, { identifierType: 'email', value: 'mine@claims.example' });
    await startIdentifierVerification(deps, call, added._id);
    codes.whileVerifying = async () => {
      await changeMyIdentifier(deps, call, { identifierId: added._id, identifierType: 'email', value: 'me-victim@claims.example' });
    };
    expect(await rejection(finishIdentifierVerification(deps, call, { identifierId: added._id, code: FakeOneTimeCodes.CODE }))).toEqual({ kind: 'failed_precondition', type: 'verification_not_started' });
    expect(await holders('me-victim@claims.example')).toEqual([{ userId: call.userId, status: 'pending', claimed: false }]);
    expect(await holders('mine@claims.example')).toEqual([]);
    expect(identifierId).toBeTruthy();
  });

  it('a claim is written only while the identifier holds the proven value', async () => {
    const { userId } = await signUp(INCAPABLE_BROWSER, 'moved@claims.example');
    const [identifier] = await deps.identifiers.listForUser(A, userId);
    await deps.identifiers.updateValue(A, userId, identifier!._id, { value: 'moved-on@claims.example', status: 'pending', claimed: false }, new Date());
    expect(await claimProvenIdentifier(deps, callOf(), { userId, identifierId: identifier!._id, type: 'email', value: 'moved@claims.example' })).toBe('changed');
    expect(await holders('moved-on@claims.example')).toEqual([{ userId, status: 'pending', claimed: false }]);
  });
});

describe('proof before a claim counts (item 4)', () => {
  it('pre-hijack: an attacker\'s passkey-only sign-up with the victim\'s address blocks nobody, logs nobody in, and loses the address to the proof', async () => {
    // The attacker signs up with the victim's address and its own passkey; the address is never proven.
    const attacker = await signUp(CAPABLE_BROWSER, 'pre@claims.example');
    await finishPasskeyAppend(deps, attacker.call, '{"id":"att"}');
    ceremony.passkeys.set(attacker.userId, [passkey('cre-a', 'cred-a')]);
    expect((await finishProcess(deps, attacker.call)).block).toBe('completed');

    // A login by the address finds no account: no code goes to the attacker's account.
    const login = await start(CAPABLE_BROWSER, 'login-init');
    expect((await initLogin(deps, login, { identifierValue: 'pre@claims.example', isPhone: false })).block).toMatchObject({ block: 'login-init', error: { code: 'identifier_not_found' } });
    expect(codes.sent).toHaveLength(0);

    // The victim's sign-up is not blocked; the code proves the address and the victim's account takes it.
    const victim = await signUp(INCAPABLE_BROWSER, 'pre@claims.example');
    expect(victim.block).toMatchObject({ block: 'email-verify' });
    expect(victim.userId).not.toBe(attacker.userId);
    expect((await code(victim.call)).block).toBe('completed');
    expect(await holders('pre@claims.example')).toEqual([{ userId: victim.userId, status: 'verified', claimed: true }]);
    // The attacker's account keeps its passkey but no longer holds the address.
    expect(await deps.identifiers.listForUser(A, attacker.userId)).toEqual([]);
    expect(await deps.users.find(A, attacker.userId)).toMatchObject({ status: 'active' });

    // The victim's code login lands in the victim's account.
    ceremony.startedLogin = { loginAllow: false, assertionOptions: '' };
    const again = await start(CAPABLE_BROWSER, 'login-init');
    await initLogin(deps, again, { identifierValue: 'pre@claims.example', isPhone: false });
    expect(codes.sent.at(-1)!.input).toMatchObject({ userId: victim.userId, identifierValue: 'pre@claims.example' });
  });

  it('a value the application vouched for meanwhile is refused at the code step, and the sign-up no longer asserts it', async () => {
    const late = await signUp(INCAPABLE_BROWSER, 'race@claims.example');
    // Meanwhile the application vouches for the address on its own user.
    const owner = await createUser(deps, { projectId: A, status: 'active' });
    await createIdentifier(deps, { projectId: A, userId: owner._id, type: 'email', value: 'race@claims.example', status: 'verified' });
    expect(await code(late.call)).toMatchObject({ block: 'email-verify', error: { code: 'identifier_already_in_use' } });
    expect(await deps.authProcesses.find(A, late.call.processId!)).toMatchObject({ verified: false, proof: null, challenge: null });
    // The application's word removed the sign-up's assertion of the address.
    expect(await holders('race@claims.example')).toEqual([{ userId: owner._id, status: 'verified', claimed: true }]);
    // A new sign-up with the address is now refused at once.
    const next = await start(CAPABLE_BROWSER, 'signup-init');
    const { block } = await initSignup(deps, next, { identifiers: [{ type: 'email', identifier: 'race@claims.example' }] });
    expect((block.data as SignupInitData).identifiers[0]?.error?.code).toBe('identifier_already_in_use');
  });

  it('/v2/me: adding or changing to a value others only asserted is allowed and powerless until proven; a claimed one is refused; the limit holds', async () => {
    await signUp(INCAPABLE_BROWSER, 'asserted@claims.example');
    const { call, identifierId } = await signedIn('me2@claims.example');
    const added = await addMyIdentifier(deps, call, { identifierType: 'email', value: 'asserted@claims.example' });
    expect(added).toMatchObject({ status: 'pending', source: 'self', claimed: false });
    expect(await deps.identifiers.findByValue(A, 'email', 'asserted@claims.example')).toBeNull();
    const other = await signedIn('claimed-by-other@claims.example');
    expect(await rejection(addMyIdentifier(deps, call, { identifierType: 'email', value: 'claimed-by-other@claims.example' }))).toEqual({ kind: 'already_exists', type: 'identifier_already_exists' });
    expect(await rejection(changeMyIdentifier(deps, call, { identifierId, identifierType: 'email', value: 'claimed-by-other@claims.example' }))).toEqual({ kind: 'already_exists', type: 'identifier_already_exists' });
    expect(other.identifierId).toBeTruthy();
    // Proving it takes it from the sign-up that only asserted it.
    await startIdentifierVerification(deps, call, added._id);
    await finishIdentifierVerification(deps, call, { identifierId: added._id, code: FakeOneTimeCodes.CODE });
    expect(await holders('asserted@claims.example')).toEqual([{ userId: call.userId, status: 'verified', claimed: true }]);
  });
});

describe('release only what is abandoned (item 6)', () => {
  /** A user straight in the store, created `ageMs` ago, holding one unclaimed (and optionally one claimed) identifier. */
  async function holder(origin: 'signup' | 'application' | undefined, status: 'pending' | 'active', ageMs: number, value: string, extra?: string) {
    const at = new Date(Date.now() - ageMs);
    const userId = newId('usr');
    await env.deps.users.insert({ _id: userId, projectId: A, status, ...(origin ? { origin } : {}), createdAt: at, updatedAt: at });
    await env.deps.identifiers.insert({ _id: newId('ide'), projectId: A, userId, type: 'email', value, status: 'pending', source: 'self', claimed: false, createdAt: at, updatedAt: at });
    if (extra) await env.deps.identifiers.insert({ _id: newId('ide'), projectId: A, userId, type: 'phone', value: extra, status: 'pending', source: 'self', claimed: false, createdAt: at, updatedAt: at });
    return userId;
  }

  it('removes only the assertions of an expired, pending sign-up without a proof or passkey; the user stays', async () => {
    const abandoned = await holder('signup', 'pending', 2 * HOURS, 'rel@claims.example', '+4915100000001');
    const running = await holder('signup', 'pending', 60 * 1000, 'rel@claims.example', '+4915100000002');
    const withPasskey = await holder('signup', 'pending', 2 * HOURS, 'rel@claims.example', '+4915100000003');
    ceremony.passkeys.set(withPasskey, [passkey('cre-r', 'cred-r')]);
    const application = await holder('application', 'pending', 2 * HOURS, 'rel@claims.example', '+4915100000004');
    const legacy = await holder(undefined, 'pending', 2 * HOURS, 'rel@claims.example', '+4915100000005');
    const completed = await holder('signup', 'active', 2 * HOURS, 'rel@claims.example', '+4915100000006');

    const prover = await signUp(INCAPABLE_BROWSER, 'rel@claims.example');
    expect((await code(prover.call)).block).toBe('completed');
    // Every unproven holder lost the address ...
    expect(await holders('rel@claims.example')).toEqual([{ userId: prover.userId, status: 'verified', claimed: true }]);
    // ... only the abandoned sign-up lost the rest of what it asserted; no user was deleted.
    const phones = async (userId: string) => (await deps.identifiers.listForUser(A, userId)).map((i) => i.value);
    expect(await phones(abandoned)).toEqual([]);
    expect(await phones(running)).toEqual(['+4915100000002']);
    expect(await phones(withPasskey)).toEqual(['+4915100000003']);
    expect(await phones(application)).toEqual(['+4915100000004']);
    expect(await phones(legacy)).toEqual(['+4915100000005']);
    expect(await phones(completed)).toEqual(['+4915100000006']);
    for (const u of [abandoned, running, withPasskey, application, legacy, completed]) expect(await deps.users.find(A, u)).not.toBeNull();
    expect(env.cleanup.calls.filter((c) => c.projectId === A)).toEqual([]);
  });

  it('never releases a user the backend API created, however old, nor one holding a proven identifier', async () => {
    const old = { ...deps, now: () => new Date(Date.now() + 10 * HOURS) };
    const app = await createUser(deps, { projectId: A, status: 'pending' });
    expect(await deps.users.find(A, app._id)).toMatchObject({ origin: 'application' });
    await env.deps.identifiers.insert({ _id: newId('ide'), projectId: A, userId: app._id, type: 'email', value: 'app-pending@claims.example', status: 'pending', source: 'self', claimed: false, createdAt: new Date(), updatedAt: new Date() });
    expect(await releaseAbandonedSignup(old, callOf(), app._id)).toBe(false);
    expect(await deps.identifiers.listForUser(A, app._id)).toHaveLength(1);

    const proven = await holder('signup', 'pending', 0, 'proven-too@claims.example');
    await env.deps.identifiers.insert({ _id: newId('ide'), projectId: A, userId: proven, type: 'username', value: `proven-${proven}`, status: 'verified', source: 'self', claimed: true, createdAt: new Date(), updatedAt: new Date() });
    expect(await releaseAbandonedSignup(old, callOf(), proven)).toBe(false);
    const bare = await holder('signup', 'pending', 0, 'bare@claims.example');
    expect(await releaseAbandonedSignup(old, callOf(), bare)).toBe(true);
    expect(await deps.identifiers.listForUser(A, bare)).toEqual([]);
  });
});
