/**
 * Sign-up (F1) and login (F2) in memory: the block steps against the embedded store, with plain
 * fakes of the ceremony port and of the challenge service's one-time codes.
 */
import { calculateObjectSize } from 'bson';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError, failedPrecondition, invalidArgument, RelayedError, resourceExhausted } from '../../runtime/errors.js';
import type { AuthFlowDeps } from '../src/auth-flows/domain/authDeps.js';
import type { Block, CompletedData, SignupInitData } from '../src/auth-flows/domain/blockTypes.js';
import { initLogin } from '../src/auth-flows/domain/initLogin.js';
import { finishPasskeyAppend } from '../src/auth-flows/domain/finishPasskeyAppend.js';
import { finishPasskeyLogin } from '../src/auth-flows/domain/finishPasskeyLogin.js';
import { finishPasskeyMediation } from '../src/auth-flows/domain/finishPasskeyMediation.js';
import { initProcess } from '../src/auth-flows/domain/initProcess.js';
import { initSignup, type SignupInput } from '../src/auth-flows/domain/initSignup.js';
import { finishProcess } from '../src/auth-flows/domain/finishProcess.js';
import { skipBlock } from '../src/auth-flows/domain/skipBlock.js';
import { describeProcessState } from '../src/auth-flows/domain/describeProcessState.js';
import { recordProcessEvent } from '../src/auth-flows/domain/recordProcessEvent.js';
import { resetProcess } from '../src/auth-flows/domain/resetProcess.js';
import { MAX_PROCESS_EVENTS } from '../src/auth-flows/store/authProcesses.js';
import { finishIdentifierVerify } from '../src/auth-flows/domain/finishIdentifierVerify.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { ensureUserForIdentifier } from '../src/connect-flows/domain/ensureUserForIdentifier.js';
import type { FlowCall } from '../src/shared/domain/flowCall.js';
import { readProcessToken } from '../src/projects/domain/processTokens.js';
import { verifyProjectToken } from '../src/projects/domain/verifyProjectToken.js';
import type { ClientSnapshot } from '../src/shared/store/clientSnapshot.js';
import { ASSERTION_OPTIONS, ATTESTATION_OPTIONS, CAPABLE_BROWSER, FakeCeremonies, FakeOneTimeCodes, INCAPABLE_BROWSER, MEDIATION_OPTIONS, passkey } from '../../../test/kit/fakeCeremonyAndChallenge.js';
import { startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let ceremony: FakeCeremonies;
let codes: FakeOneTimeCodes;
let deps: AuthFlowDeps;
let A: string;

beforeAll(async () => {
  env = await startTestEnv();
  A = (await createProject(env.deps, { name: 'Auth flows', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
});
afterAll(() => env?.close());
beforeEach(() => {
  ceremony = new FakeCeremonies();
  codes = new FakeOneTimeCodes();
  codes.wrongCode = () => invalidArgument('challenge_value_invalid', 'the value is wrong; 4 attempt(s) left');
  deps = { ...env.deps, ceremony, challenges: codes };
});

const sha256url = (s: string) => createHash('sha256').update(s).digest('base64url');

function callOf(processId?: string): FlowCall {
  return { projectId: A, requestId: 'req-auth', clientAddress: '192.0.2.9', userAgent: 'Mozilla/5.0 (test)', ...(processId ? { processId } : {}) };
}

/** process/init for this browser; the call that continues the process, and the first block. */
async function init(client: ClientSnapshot, preferredBlock = 'login-init') {
  const r = await initProcess(deps, callOf(), { client, clientEnvHandle: undefined, preferredBlock });
  return { init: r, call: callOf((await readProcessToken(deps, A, r.token))!) };
}

const signup = (call: FlowCall, input: SignupInput) => initSignup(deps, call, input);

async function rejection(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return err;
}

/** The completed block's session token, verified, and the user it names. */
async function sessionOf(block: Block) {
  expect(block.block).toBe('completed');
  const claims = await verifyProjectToken(deps, A, String((block.data as CompletedData).shortSession), 'session');
  expect(claims).not.toBeNull();
  expect(String((block.data as CompletedData).longSession)).not.toBe('');
  return claims!;
}

describe('process init', () => {
  it('starts at login-init with the ceremony\'s conditional-UI challenge for a browser with autofill', async () => {
    const { init: r, call } = await init(CAPABLE_BROWSER);
    expect(r.block).toMatchObject({ block: 'login-init', authType: 'login', data: { conditionalUIChallenge: MEDIATION_OPTIONS } });
    expect(r.newClientEnvHandle).toBeDefined();
    expect(ceremony.calls.startMediation[0].input).toMatchObject({ processId: call.processId, client: { snapshot: CAPABLE_BROWSER, clientEnvHandle: r.newClientEnvHandle } });
  });

  it('starts at signup-init when the page prefers it, asking the ceremony nothing', async () => {
    const { init: r } = await init(CAPABLE_BROWSER, 'signup-init');
    // The form's fields: every identifier the sign-up asks for, empty; login as the alternative.
    expect(r.block).toMatchObject({ block: 'signup-init', authType: 'signup', data: { identifiers: [{ type: 'email', identifier: '' }] } });
    expect(r.block.alternatives.map((b) => b.block)).toEqual(['login-init']);
    expect(r.block.alternatives[0]!.alternatives).toEqual([]);
    expect(ceremony.calls.startMediation).toHaveLength(0);
  });
});

describe('F1 sign-up', () => {
  it('creates a pending user, offers a passkey append (code as alternative), and completes with a session once it is created', async () => {
    const { call } = await init(CAPABLE_BROWSER, 'signup-init');
    const { block } = await signup(call, { identifiers: [{ type: 'email', identifier: 'Ada@Example.com' }], fullName: 'Ada Lovelace' });
    expect(block).toMatchObject({ block: 'passkey-append', authType: 'signup', data: { challenge: ATTESTATION_OPTIONS, identifierValue: 'ada@example.com', identifierType: 'email' } });
    expect(block.alternatives.map((b) => b.block)).toEqual(['email-verify']);

    // The sign-up's identifier is an assertion (pending, unclaimed): not found by value, it is the process's.
    expect(await deps.identifiers.findByValue(A, 'email', 'ada@example.com')).toBeNull();
    const userId = (await deps.authProcesses.find(A, call.processId!))!.userId!;
    expect(await deps.users.find(A, userId)).toMatchObject({ status: 'pending', origin: 'signup', fullName: 'Ada Lovelace' });
    expect(await deps.identifiers.listForUser(A, userId)).toMatchObject([{ value: 'ada@example.com', status: 'pending', source: 'self', claimed: false }]);
    expect(ceremony.calls.startAppend[0].input).toMatchObject({ userId, processId: call.processId, username: 'ada@example.com', forcePasskeyAppend: true, situation: 'default' });

    expect(await finishPasskeyAppend(deps, call, '{"id":"att"}')).toMatchObject({ block: 'passkey-appended', authType: 'signup' });
    expect(ceremony.calls.finishAppend[0].input).toMatchObject({ userId, processId: call.processId, attestationResponse: '{"id":"att"}', trackingId: 'req-auth' });

    const done = await finishProcess(deps, call);
    expect((await sessionOf(done)).sub).toBe(userId);
    expect((done.data as CompletedData).passkeyOperation).toEqual({ operationType: 'append', identifierValue: 'ada@example.com', identifierType: 'email', ceremonyType: 'local' });
    expect((await deps.users.find(A, userId))?.status).toBe('active');
    // (Rewritten for #29: it used to find the address by value after a passkey-only sign-up.) The
    // passkey proved the user, not the address: the email stays unclaimed until a code proves it.
    expect(await deps.identifiers.listForUser(A, userId)).toMatchObject([{ value: 'ada@example.com', status: 'pending', claimed: false }]);
    expect(await deps.identifiers.findByValue(A, 'email', 'ada@example.com')).toBeNull();
    // A completed process never moves again.
    expect(await rejection(finishProcess(deps, call))).toMatchObject({ kind: 'failed_precondition', type: 'process_completed' });
  });

  it('sends a code first where the browser cannot create a passkey; a wrong code keeps the block, the right one completes', async () => {
    const { call } = await init(INCAPABLE_BROWSER, 'signup-init');
    const { block } = await signup(call, { identifiers: [{ type: 'email', identifier: 'grace@example.com' }] });
    expect(block).toMatchObject({ block: 'email-verify', data: { verificationMethod: 'email-otp', identifier: 'grace@example.com', retryNotBefore: expect.any(Number) } });
    expect(ceremony.calls.startAppend).toHaveLength(0);
    expect(codes.sent).toHaveLength(1);
    // (Rewritten for #29: the unproven address is not found by value; the process names the user.)
    const userId = (await deps.authProcesses.find(A, call.processId!))!.userId!;
    expect(await deps.identifiers.findByValue(A, 'email', 'grace@example.com')).toBeNull();
    expect(codes.sent[0].input).toEqual({ userId, channel: 'email_otp', identifierValue: 'grace@example.com' });
    expect(codes.sent[0].call).toMatchObject({ projectId: A, requestId: 'req-auth', clientAddress: '192.0.2.9' });

    const verify = (code: string) => finishIdentifierVerify(deps, call, { code, identifierType: 'email', verificationType: 'email-otp' });
    const wrong = await verify('000000');
    expect(wrong).toMatchObject({ block: 'email-verify', error: { code: 'invalid_code' } });
    expect(codes.verified[0].input).toEqual({ userId, challengeId: codes.sent[0].challengeId, value: '000000' });

    const done = await verify(FakeOneTimeCodes.CODE);
    expect((await sessionOf(done)).sub).toBe(userId);
    expect((done.data as CompletedData).passkeyOperation).toBeUndefined();
    // The code claimed the address for this user, and the process keeps what it proved.
    expect(await deps.identifiers.findByValue(A, 'email', 'grace@example.com')).toMatchObject({ userId, status: 'verified', claimed: true, source: 'self' });
    expect((await deps.users.find(A, userId))?.status).toBe('active');
    expect((await deps.authProcesses.find(A, call.processId!))?.proof).toEqual({ identifierId: (await deps.identifiers.listForUser(A, userId))[0]!._id, value: 'grace@example.com', challengeId: codes.sent[0].challengeId });
  });

  it('answers every problem next to its identifier and stores nothing', async () => {
    await ensureUserForIdentifier(deps, A, { type: 'email', value: 'taken@example.com' }, 'Taken');
    const { call } = await init(CAPABLE_BROWSER, 'signup-init');
    const { block } = await signup(call, {
      identifiers: [
        { type: 'email', identifier: 'taken@example.com' },
        { type: 'phone', identifier: 'not a number' },
        { type: 'phone', identifier: '+4915112345678' },
      ],
    });
    expect(block.block).toBe('signup-init');
    const errors = (block.data as SignupInitData).identifiers.map((i) => i.error?.code);
    expect(errors).toEqual(['identifier_already_in_use', 'identifier_invalid', 'identifier_duplicate_type']);
    expect(await deps.identifiers.findByValue(A, 'phone', '+4915112345678')).toBeNull();
    expect(ceremony.calls.startAppend).toHaveLength(0);
  });

  it('skipping the append sends the code instead (the user is not proven yet)', async () => {
    const { call } = await init(CAPABLE_BROWSER, 'signup-init');
    await signup(call, { identifiers: [{ type: 'email', identifier: 'skip@example.com' }] });
    const block = await skipBlock(deps, call);
    expect(block).toMatchObject({ block: 'email-verify' });
    expect(codes.sent.map((s) => s.input.identifierValue)).toEqual(['skip@example.com']);
  });
});

describe('F2 login', () => {
  async function existingUser(email: string) {
    return (await ensureUserForIdentifier(deps, A, { type: 'email', value: email }, undefined)).user;
  }

  it('offers passkey-verify (code as alternative) and completes with the passkey', async () => {
    const user = await existingUser('turing@example.com');
    ceremony.startedLogin = { loginAllow: true, assertionOptions: ASSERTION_OPTIONS, decisionInsights: { tag: 'ok', isCdaCandidate: true, preferImmediatelyAvailable: false } };
    const { call } = await init(CAPABLE_BROWSER);
    const { block } = await initLogin(deps, call, { identifierValue: 'turing@example.com', isPhone: false });
    expect(block).toMatchObject({ block: 'passkey-verify', data: { challenge: ASSERTION_OPTIONS, identifierValue: 'turing@example.com', loginHint: 'cda' } });
    expect(block.alternatives.map((b) => b.block)).toEqual(['email-verify']);
    expect(ceremony.calls.startLogin[0].input).toMatchObject({ userId: user._id, processId: call.processId, crossDeviceAuthenticationStrategy: 'standard' });

    ceremony.passkeyData = { id: 'cre-3', username: 'turing@example.com', challengeId: 'cha-3', ceremonyType: 'cda' };
    const done = await finishPasskeyLogin(deps, call, '{"id":"a"}');
    expect(ceremony.calls.finishLogin[0].input).toMatchObject({ userId: user._id, assertionResponse: '{"id":"a"}', processId: call.processId });
    expect((ceremony.calls.finishLogin[0].input as { signPasskeyData?: boolean }).signPasskeyData).toBeUndefined();
    expect((await sessionOf(done)).sub).toBe(user._id);
    expect((done.data as CompletedData).passkeyOperation).toEqual({ operationType: 'verify', identifierValue: 'turing@example.com', identifierType: 'email', ceremonyType: 'cda' });
  });

  it('sends the code at once when no passkey login is possible, then offers an append to a user without passkeys', async () => {
    const user = await existingUser('hopper@example.com');
    ceremony.startedLogin = { loginAllow: false, assertionOptions: '' };
    const { call } = await init(CAPABLE_BROWSER);
    const { block } = await initLogin(deps, call, { identifierValue: 'hopper@example.com', isPhone: false });
    expect(block).toMatchObject({ block: 'email-verify', authType: 'login' });
    expect(codes.sent[0].input).toEqual({ userId: user._id, channel: 'email_otp', identifierValue: 'hopper@example.com' });

    const next = await finishIdentifierVerify(deps, call, { code: FakeOneTimeCodes.CODE, identifierType: 'email', verificationType: 'email-otp' });
    expect(ceremony.calls.listPasskeys[0].input).toEqual({ userId: user._id, page: 1, pageSize: 1 });
    expect(next).toMatchObject({ block: 'passkey-append', authType: 'login', alternatives: [] });
  });

  it('completes after the code for a user who has passkeys already', async () => {
    const user = await existingUser('curie@example.com');
    ceremony.startedLogin = { loginAllow: false, assertionOptions: '' };
    ceremony.passkeys.set(user._id, [passkey('cre-1', 'cred-1')]);
    const { call } = await init(CAPABLE_BROWSER);
    await initLogin(deps, call, { identifierValue: 'curie@example.com', isPhone: false });
    const done = await finishIdentifierVerify(deps, call, { code: FakeOneTimeCodes.CODE, identifierType: 'email', verificationType: 'email-otp' });
    expect((await sessionOf(done)).sub).toBe(user._id);
  });

  it('keeps the verification block with the reason the challenge service refused the code', async () => {
    await existingUser('lamarr@example.com');
    ceremony.startedLogin = { loginAllow: false, assertionOptions: '' };
    const { call } = await init(CAPABLE_BROWSER);
    await initLogin(deps, call, { identifierValue: 'lamarr@example.com', isPhone: false });
    const verify = () => finishIdentifierVerify(deps, call, { code: FakeOneTimeCodes.CODE, identifierType: 'email', verificationType: 'email-otp' });

    codes.verifyFailures.push(failedPrecondition('challenge_expired', 'the challenge expired'));
    expect(await verify()).toMatchObject({ block: 'email-verify', error: { code: 'code_expired' } });
    codes.verifyFailures.push(resourceExhausted('too_many_attempts', 'slow down', 30));
    expect(await verify()).toMatchObject({ block: 'email-verify', error: { code: 'too_many_attempts' } });
    // An outage is no answer about the code: it goes on as it came.
    const outage = new RelayedError('unavailable', 'upstream_error', 'unreachable', new Error('ECONNREFUSED'));
    codes.verifyFailures.push(outage);
    await expect(verify()).rejects.toBe(outage);
    expect((await deps.authProcesses.find(A, call.processId!))?.verified).toBe(false);
  });

  it('answers login-init with fieldError for an unknown identifier, revealing nothing else', async () => {
    const { call } = await init(CAPABLE_BROWSER);
    const { block } = await initLogin(deps, call, { identifierValue: 'nobody@example.com', isPhone: false });
    expect(block).toMatchObject({ block: 'login-init', error: { code: 'identifier_not_found' } });
    expect(ceremony.calls.startLogin).toHaveLength(0);
    expect(codes.sent).toHaveLength(0);
  });

  it('logs in by conditional UI: the passkey names the user', async () => {
    const user = await existingUser('noether@example.com');
    ceremony.passkeyData = { id: 'cre-4', userId: user._id, username: 'noether@example.com', challengeId: 'cha-4', ceremonyType: 'local' };
    const { call } = await init(CAPABLE_BROWSER);
    const done = await finishPasskeyMediation(deps, call, '{"id":"m"}');
    expect(ceremony.calls.finishMediation[0].input).toMatchObject({ processId: call.processId });
    expect((await sessionOf(done)).sub).toBe(user._id);
    expect((done.data as CompletedData).passkeyOperation).toMatchObject({ operationType: 'verify', identifierValue: 'noether@example.com' });

    const { call: again } = await init(CAPABLE_BROWSER);
    ceremony.mediationCredentialDeleted = true;
    expect(await finishPasskeyMediation(deps, again, '{}')).toMatchObject({ block: 'login-init', error: { code: 'credential_deleted' } });
  });

  it('passes the ceremony refusing a passkey login on unchanged, and the process does not complete', async () => {
    await existingUser('franklin@example.com');
    const { call } = await init(CAPABLE_BROWSER);
    await initLogin(deps, call, { identifierValue: 'franklin@example.com', isPhone: false });
    const refusal = invalidArgument('assertion_invalid', 'the signature does not verify');
    ceremony.failures.finishLogin = refusal;
    await expect(finishPasskeyLogin(deps, call, '{}')).rejects.toBe(refusal);
    expect((await deps.authProcesses.find(A, call.processId!))?.status).toBe('active');
  });
});

describe('what web-core 3.x needs: resuming, resetting, events, Continue after the append', () => {
  it('describeProcessState answers the stored block: the first block as preferred, then a fresh append', async () => {
    const { call } = await init(CAPABLE_BROWSER);
    expect(await describeProcessState(deps, call, '')).toMatchObject({ block: 'login-init', data: { conditionalUIChallenge: MEDIATION_OPTIONS }, alternatives: [{ block: 'signup-init' }] });
    expect(await describeProcessState(deps, call, 'signup-init')).toMatchObject({ block: 'signup-init', alternatives: [{ block: 'login-init' }] });
    await signup(call, { identifiers: [{ type: 'email', identifier: 'resume@example.com' }] });
    const appends = ceremony.calls.startAppend.length;
    expect(await describeProcessState(deps, call, '')).toMatchObject({ block: 'passkey-append', data: { challenge: ATTESTATION_OPTIONS } });
    expect(ceremony.calls.startAppend).toHaveLength(appends + 1);
    await finishPasskeyAppend(deps, call, '{"id":"att"}');
    expect(await describeProcessState(deps, call, '')).toMatchObject({ block: 'passkey-appended', authType: 'signup' });
    // Continue (block/skip) from passkey-appended completes.
    await sessionOf(await skipBlock(deps, call));
    expect((await rejection(describeProcessState(deps, call, ''))).type).toBe('process_completed');
  });

  it('recordProcessEvent stores a bounded digest of the worst input, and no step reads the events', async () => {
    const { call } = await init(CAPABLE_BROWSER, 'signup-init');
    const emptySize = calculateObjectSize((await env.store.db.collection('auth_processes').findOne({ _id: call.processId as never }))!);
    // The worst an anonymous caller can send: the longest event type with the longest challenge the
    // gateway lets through (65,536 characters), as often as it likes.
    const challenge = `{"publicKey":${'x'.repeat(65_536 - 14)}}`;
    for (let i = 0; i < MAX_PROCESS_EVENTS + 5; i++) await recordProcessEvent(deps, call, { type: 'user-append-after-cross-platform-blacklisted', challenge });
    const raw = (await env.store.db.collection('auth_processes').findOne({ _id: call.processId as never }))!;
    const added = calculateObjectSize(raw) - emptySize;
    // Measured: 3,243 bytes for MAX_PROCESS_EVENTS such events (before this bound: 1,312,563 bytes).
    expect(added).toBeLessThan(3_500);
    expect(JSON.stringify(raw)).not.toContain('xxxxxxxx');
    // The steps read the process without its events, and a step still works after them.
    expect(await deps.authProcesses.find(A, call.processId!)).not.toHaveProperty('events');
    const r = await signup(call, { identifiers: [{ type: 'email', identifier: 'events@example.com' }] });
    expect(r.block).toMatchObject({ block: 'passkey-append' });
    const moved = await deps.authProcesses.advance(A, call.processId!, ['passkey-append'], { block: 'passkey-append' }, new Date());
    expect(moved).toMatchObject({ block: 'passkey-append' });
    expect(moved).not.toHaveProperty('events');
    expect((await env.store.db.collection<{ events: unknown[] }>('auth_processes').findOne({ _id: call.processId as never }))!.events).toHaveLength(MAX_PROCESS_EVENTS);
  });

  it('resetProcess starts a new process at the first block of the same kind', async () => {
    const { call } = await init(CAPABLE_BROWSER, 'signup-init');
    await signup(call, { identifiers: [{ type: 'email', identifier: 'reset@example.com' }] });
    const r = await resetProcess(deps, call);
    expect(r.block).toMatchObject({ block: 'signup-init', data: { identifiers: [{ type: 'email', identifier: '' }] } });
    const fresh = callOf((await readProcessToken(deps, A, r.newProcess.token))!);
    expect(fresh.processId).not.toBe(call.processId);
    expect((await env.store.db.collection('auth_processes').findOne({ _id: fresh.processId as never }))).toMatchObject({ block: 'signup-init', authType: 'signup', status: 'active' });
  });

  it('recordProcessEvent keeps the newest events on the process; an unknown or connect process is refused', async () => {
    const { call } = await init(CAPABLE_BROWSER);
    for (let i = 0; i < MAX_PROCESS_EVENTS + 3; i++) await recordProcessEvent(deps, call, { type: 'login-error', challenge: `c${i}` });
    const stored = await env.store.db.collection<{ events: { type: string; challengeSha256?: string }[] }>('auth_processes').findOne({ _id: call.processId as never });
    expect(stored!.events).toHaveLength(MAX_PROCESS_EVENTS);
    expect(stored!.events.at(-1)).toEqual({ type: 'login-error', challengeSha256: sha256url(`c${MAX_PROCESS_EVENTS + 2}`), challengeLength: `c${MAX_PROCESS_EVENTS + 2}`.length, at: expect.any(Date) });
    expect((await rejection(recordProcessEvent(deps, callOf('apr-1'), { type: 'login-error' }))).type).toBe('process_not_found');
    expect((await rejection(recordProcessEvent(deps, callOf('cpr-1'), { type: 'login-error' }))).type).toBe('wrong_process');
    expect((await rejection(recordProcessEvent(deps, callOf(), { type: 'login-error' }))).type).toBe('process_token_required');
  });
});
