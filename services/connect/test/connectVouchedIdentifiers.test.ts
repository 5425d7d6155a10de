/**
 * Connect resolves only identifiers the application vouched for or the user proved (#29 item 2):
 * a value a self sign-up merely asserted never finds a user for a connect login or append, is never
 * named in signedPasskeyData, and is lost to the application's user. In memory, against the
 * embedded store, with the plain ceremony fake.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { newId } from '../../runtime/ids.js';
import { createConnectToken } from '../src/connect-tokens/domain/createConnectToken.js';
import { createIdentifier } from '../src/users/domain/createIdentifier.js';
import { createUser } from '../src/users/domain/createUser.js';
import { updateIdentifier } from '../src/users/domain/updateIdentifier.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { signPasskeyData } from '../src/projects/domain/signPasskeyData.js';
import { finishLogin } from '../src/connect-flows/domain/finishLogin.js';
import { startAppend } from '../src/connect-flows/domain/startAppend.js';
import { startLogin } from '../src/connect-flows/domain/startLogin.js';
import type { ConnectFlowDeps } from '../src/connect-flows/domain/flowDeps.js';
import type { FlowCall } from '../src/shared/domain/flowCall.js';
import { initFlow } from '../src/connect-flows/domain/initFlow.js';
import { readProcessToken } from '../src/projects/domain/processTokens.js';
import { pickVouchedUsername } from '../src/users/domain/pickVouchedUsername.js';
import type { ConnectFlow } from '../src/connect-flows/store/processes.js';
import type { IdentifierStatus, IdentifierSource } from '../src/users/store/identifiers.js';
import type { UserOrigin } from '../src/users/store/users.js';
import { ATTESTATION_OPTIONS, ASSERTION_OPTIONS, CAPABLE_BROWSER, FakeCeremonies } from '../../../test/kit/fakeCeremonyAndChallenge.js';
import { startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let ceremony: FakeCeremonies;
let deps: ConnectFlowDeps & Pick<TestEnv['deps'], 'events'>;
let A: string;

beforeAll(async () => {
  env = await startTestEnv();
  A = (await createProject(env.deps, { name: 'Vouched identifiers', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
});
afterAll(() => env?.close());
beforeEach(() => {
  ceremony = new FakeCeremonies();
  deps = { ...env.deps, ceremony };
});

function callOf(processId?: string): FlowCall {
  return { projectId: A, requestId: 'req-vouched', clientAddress: '192.0.2.9', userAgent: 'Mozilla/5.0 (test)', ...(processId ? { processId } : {}) };
}

async function init(flow: ConnectFlow): Promise<FlowCall> {
  const r = await initFlow(deps, callOf(), { flow, client: CAPABLE_BROWSER, clientEnvHandle: undefined, flags: {}, invitationToken: '' });
  return callOf((await readProcessToken(deps, A, r.processToken))!);
}

/** A user as a sign-up (origin "signup") or the application created it, with one email identifier. */
async function userHolding(email: string, identifier: { status: IdentifierStatus; source: IdentifierSource; claimed: boolean }, origin: UserOrigin) {
  const now = new Date();
  const userId = newId('usr');
  await deps.users.insert({ _id: userId, projectId: A, status: 'active', origin, createdAt: now, updatedAt: now });
  const identifierId = newId('ide');
  const outcome = await deps.identifiers.insert({ _id: identifierId, projectId: A, userId, type: 'email', value: email, ...identifier, createdAt: now, updatedAt: now });
  expect(outcome).toBe('created');
  return { userId, identifierId };
}

const ASSERTED = { status: 'pending', source: 'self', claimed: false } as const;
const PROVEN = { status: 'verified', source: 'self', claimed: true } as const;

describe('connect login', () => {
  it('falls back for an address a self sign-up only asserted, and never asks the ceremony for that user', async () => {
    await userHolding('victim@bank.example', ASSERTED, 'signup');
    ceremony.startedLogin = { loginAllow: true, assertionOptions: ASSERTION_OPTIONS };
    const call = await init('login');
    const r = await startLogin(deps, call, { identifier: 'victim@bank.example', source: 'text-field', loadedMs: 10, loginConnectToken: '' });
    expect(r.fallback).toMatchObject({ initFallback: true, error: { code: 'passkey_login_unavailable' } });
    expect(ceremony.calls.startLogin).toHaveLength(0);
  });

  it('finds the user of a proven address', async () => {
    const { userId } = await userHolding('proven@bank.example', PROVEN, 'signup');
    ceremony.startedLogin = { loginAllow: true, assertionOptions: ASSERTION_OPTIONS };
    const call = await init('login');
    const r = await startLogin(deps, call, { identifier: 'proven@bank.example', source: 'text-field', loadedMs: 10, loginConnectToken: '' });
    expect(r.fallback.initFallback).toBe(false);
    expect(ceremony.calls.startLogin[0].input).toMatchObject({ userId });
  });

  it('does not name a conditional-UI user by an asserted address in the operation it reports', async () => {
    const { userId } = await userHolding('ceo@victim-corp.example', ASSERTED, 'signup');
    ceremony.passkeyData = { id: 'cre-a', userId, username: 'ceo@victim-corp.example', challengeId: 'cha-a', ceremonyType: 'local' };
    const call = await init('login');
    const r = await finishLogin(deps, call, { isConditionalUI: true, assertionResponse: '{"id":"a"}' });
    expect(r.operation).toBeUndefined();
  });
});

describe('connect append', () => {
  beforeEach(() => {
    ceremony.startedAppend = { appendAllow: true, attestationOptions: ATTESTATION_OPTIONS, detectionTags: [] };
  });

  it("never adopts a self sign-up's user for an address it only asserted: the application's user gets it and the assertion is gone", async () => {
    const attacker = await userHolding('victim2@bank.example', ASSERTED, 'signup');
    const call = await init('append');
    const { secret } = await createConnectToken(deps, { projectId: A, type: 'passkey-append', identifier: 'victim2@bank.example', displayName: 'Victim' });
    await startAppend(deps, call, { appendTokenValue: secret, forcePasskeyAppend: false, loadedMs: 5 });

    const appendedFor = ceremony.calls.startAppend[0].input as { userId: string };
    expect(appendedFor.userId).not.toBe(attacker.userId);
    const claimed = await deps.identifiers.findByValue(A, 'email', 'victim2@bank.example');
    expect(claimed).toMatchObject({ userId: appendedFor.userId, status: 'verified', source: 'application', claimed: true });
    expect(await deps.users.find(A, appendedFor.userId)).toMatchObject({ origin: 'application', fullName: 'Victim' });
    // The attacker's account no longer holds the address at all.
    expect(await deps.identifiers.listForUser(A, attacker.userId)).toEqual([]);
    expect(await deps.identifiers.listUnclaimedByValue(A, 'email', 'victim2@bank.example', 10)).toEqual([]);
  });

  it('adopts the user who proved the address', async () => {
    const owner = await userHolding('owner@bank.example', PROVEN, 'signup');
    const call = await init('append');
    const { secret } = await createConnectToken(deps, { projectId: A, type: 'passkey-append', identifier: 'owner@bank.example', displayName: 'Owner' });
    await startAppend(deps, call, { appendTokenValue: secret, forcePasskeyAppend: false, loadedMs: 5 });
    expect((ceremony.calls.startAppend[0].input as { userId: string }).userId).toBe(owner.userId);
  });
});

describe('signedPasskeyData names only a vouched identifier', () => {
  it("keeps a claimed identifier, replaces an asserted one by the user's claimed one or by nothing", async () => {
    const vouched = await userHolding('app-user@bank.example', { status: 'pending', source: 'application', claimed: true }, 'application');
    expect(await pickVouchedUsername(deps, A, vouched.userId, 'app-user@bank.example')).toBe('app-user@bank.example');

    const signup = await userHolding('ceo2@victim-corp.example', ASSERTED, 'signup');
    expect(await pickVouchedUsername(deps, A, signup.userId, 'ceo2@victim-corp.example')).toBe('');
    // A sign-up user's passkey name is an assertion even when no identifier holds it any more.
    expect(await pickVouchedUsername(deps, A, signup.userId, 'somebody@else.example')).toBe('');

    const now = new Date();
    await deps.identifiers.insert({ _id: newId('ide'), projectId: A, userId: signup.userId, type: 'phone', value: '+4915100000077', status: 'verified', source: 'self', claimed: true, createdAt: now, updatedAt: now });
    expect(await pickVouchedUsername(deps, A, signup.userId, 'ceo2@victim-corp.example')).toBe('+4915100000077');

    expect(await pickVouchedUsername(deps, A, 'usr-00000000000000000404', 'gone@example.com')).toBe('');
  });

  it("keeps the name the application gave a passkey of its own user (backend B2), unless the user's own assertion says the same", async () => {
    const now = new Date();
    const appUser = newId('usr');
    await deps.users.insert({ _id: appUser, projectId: A, status: 'active', origin: 'application', createdAt: now, updatedAt: now });
    expect(await pickVouchedUsername(deps, A, appUser, 'ada@app.example')).toBe('ada@app.example');
    await deps.identifiers.insert({ _id: newId('ide'), projectId: A, userId: appUser, type: 'email', value: 'ada@app.example', ...ASSERTED, createdAt: now, updatedAt: now });
    expect(await pickVouchedUsername(deps, A, appUser, 'ada@app.example')).toBe('');
  });

  it('signs the vouched name, never the passkey\'s asserted one', async () => {
    const signup = await userHolding('ceo3@victim-corp.example', ASSERTED, 'signup');
    const token = await signPasskeyData(deps, A, { id: 'cre-s', userId: signup.userId, username: 'ceo3@victim-corp.example', challengeId: 'cha-s', ceremonyType: 'local' }, 60);
    expect(decodeJwt(token)).toMatchObject({ kind: 'passkey_data', sub: signup.userId, username: '' });
  });
});

describe("the application's word outranks an assertion", () => {
  it('removes the unproven holders of a value the backend API creates or gives a status', async () => {
    const asserter = await userHolding('claimed-by-app@bank.example', ASSERTED, 'signup');
    const appUser = await createUser(deps, { projectId: A, status: 'active' });
    const created = await createIdentifier(deps, { projectId: A, userId: appUser._id, type: 'email', value: 'claimed-by-app@bank.example', status: 'pending' });
    expect(created).toMatchObject({ source: 'application', claimed: true });
    expect(await deps.identifiers.listForUser(A, asserter.userId)).toEqual([]);
    expect((await deps.identifiers.findByValue(A, 'email', 'claimed-by-app@bank.example'))?.userId).toBe(appUser._id);

    // A self identifier the application later sets a status on becomes its word too.
    const selfHeld = await userHolding('later@bank.example', ASSERTED, 'signup');
    const other = await userHolding('later@bank.example', ASSERTED, 'signup');
    const vouched = await updateIdentifier(deps, { projectId: A, userId: selfHeld.userId, identifierId: selfHeld.identifierId, status: 'verified' });
    expect(vouched).toMatchObject({ claimed: true, source: 'application', status: 'verified' });
    expect(await deps.identifiers.listForUser(A, other.userId)).toEqual([]);
  });
});
