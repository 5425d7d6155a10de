/**
 * The connect login flow (F5 init, F8 start, F9 finish) in memory: the domain functions against
 * the embedded store, with a plain fake of the ceremony port in place of the ceremony service.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError, invalidArgument } from '../../runtime/errors.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { ensureUserForIdentifier } from '../src/connect-flows/domain/ensureUserForIdentifier.js';
import type { ConnectFlowDeps } from '../src/connect-flows/domain/flowDeps.js';
import type { FlowCall } from '../src/shared/domain/flowCall.js';
import { initFlow } from '../src/connect-flows/domain/initFlow.js';
import { finishLogin } from '../src/connect-flows/domain/finishLogin.js';
import { startLogin, type LoginStartInput } from '../src/connect-flows/domain/startLogin.js';
import { readProcessToken } from '../src/projects/domain/processTokens.js';
import { verifyProjectToken } from '../src/projects/domain/verifyProjectToken.js';
import { signPasskeyData } from '../src/projects/domain/signPasskeyData.js';
import type { ClientSnapshot } from '../src/shared/store/clientSnapshot.js';
import { ASSERTION_OPTIONS, CAPABLE_BROWSER, FakeCeremonies, INCAPABLE_BROWSER, MEDIATION_OPTIONS } from '../../../test/kit/fakeCeremonyAndChallenge.js';
import { startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let ceremony: FakeCeremonies;
let deps: ConnectFlowDeps;
let A: string;

beforeAll(async () => {
  env = await startTestEnv();
  A = (await createProject(env.deps, { name: 'Login flow', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
});
afterAll(() => env?.close());
beforeEach(() => {
  ceremony = new FakeCeremonies();
  deps = { ...env.deps, ceremony };
});

function callOf(processId?: string): FlowCall {
  return { projectId: A, requestId: 'req-login', clientAddress: '203.0.113.7', userAgent: 'Mozilla/5.0 (test)', ...(processId ? { processId } : {}) };
}

/** F5: a login process for this browser; the call that continues it. */
async function init(client: ClientSnapshot = CAPABLE_BROWSER, clientEnvHandle?: string) {
  const r = await initFlow(deps, callOf(), { flow: 'login', client, clientEnvHandle, flags: {}, invitationToken: '' });
  const processId = await readProcessToken(deps, A, r.processToken);
  return { init: r, call: callOf(processId!) };
}

const start = (call: FlowCall, identifier: string, more: Partial<LoginStartInput> = {}) =>
  startLogin(deps, call, { identifier, source: 'text-field', loadedMs: 120, loginConnectToken: '', ...more });

async function userWith(email: string, displayName?: string) {
  return (await ensureUserForIdentifier(deps, A, { type: 'email', value: email }, displayName)).user;
}

async function rejection(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return err;
}

describe('F5 login init', () => {
  it('offers the flow to a capable browser, with a conditional-UI challenge from the ceremony and a new environment', async () => {
    const { init: r, call } = await init();
    expect(r.allowed).toBe(true);
    expect(r.conditionalUIChallenge).toBe(MEDIATION_OPTIONS);
    expect(r.flags['conditional-ui-allowed']).toBe('true');
    expect(r.newClientEnvHandle).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(r.frontendApiUrl).toBe('http://localhost:8080');

    // The ceremony gets the browser as the process recorded it and the gateway saw it.
    expect(ceremony.calls.startMediation).toHaveLength(1);
    const mediation = ceremony.calls.startMediation[0];
    expect(mediation.call).toMatchObject({ projectId: A, requestId: 'req-login', clientAddress: '203.0.113.7' });
    expect(mediation.input).toEqual({
      processId: call.processId,
      client: { snapshot: CAPABLE_BROWSER, clientEnvHandle: r.newClientEnvHandle, remoteAddress: '203.0.113.7', userAgent: 'Mozilla/5.0 (test)' },
    });
  });

  it('does not offer it to a browser without passkey support, and asks the ceremony nothing', async () => {
    const { init: r } = await init(INCAPABLE_BROWSER);
    expect(r.allowed).toBe(false);
    expect(r.conditionalUIChallenge).toBeUndefined();
    expect(r.flags['conditional-ui-allowed']).toBe('false');
    expect(ceremony.calls.startMediation).toHaveLength(0);
  });

  it('says "false" for conditional UI when the ceremony does not allow a mediation', async () => {
    ceremony.startedMediation = { loginAllow: false, assertionOptions: '' };
    const { init: r } = await init();
    expect(r.conditionalUIChallenge).toBeUndefined();
    expect(r.flags['conditional-ui-allowed']).toBe('false');
  });
});

describe('F8 login start', () => {
  it('answers assertion options for a known user, from the ceremony', async () => {
    const user = await userWith('ada@example.com');
    ceremony.startedLogin = { loginAllow: true, assertionOptions: ASSERTION_OPTIONS, decisionInsights: { tag: 'ok', isCdaCandidate: true, preferImmediatelyAvailable: false } };
    const { call } = await init();
    const r = await start(call, '  Ada@Example.com ');
    expect(r).toEqual({ assertionOptions: ASSERTION_OPTIONS, isCDA: true, fallback: { initFallback: false }, preferImmediatelyAvailable: false });
    expect(ceremony.calls.startLogin).toHaveLength(1);
    expect(ceremony.calls.startLogin[0].input).toMatchObject({ userId: user._id, processId: call.processId, crossDeviceAuthenticationStrategy: 'standard' });

    const process = await deps.processes.find(A, call.processId!);
    expect(process?.userId).toBe(user._id);
    expect(process?.identifier).toEqual({ type: 'email', value: 'ada@example.com' });
    expect(process?.loginStarts?.map((s) => s.outcome)).toEqual(['assertion']);
  });

  it('falls back, without asking the ceremony, for an unknown identifier', async () => {
    const { call } = await init();
    const r = await start(call, 'nobody@example.com');
    expect(r).toEqual({
      assertionOptions: '',
      isCDA: false,
      fallback: { initFallback: true, identifier: 'nobody@example.com', error: { code: 'passkey_login_unavailable', message: expect.any(String) } },
    });
    expect(ceremony.calls.startLogin).toHaveLength(0);
  });

  it('falls back when the ceremony does not allow the login, and records its reason', async () => {
    await userWith('grace@example.com');
    ceremony.startedLogin = { loginAllow: false, assertionOptions: '', decisionInsights: { tag: 'no-passkeys', isCdaCandidate: false, preferImmediatelyAvailable: false } };
    const { call } = await init();
    const r = await start(call, 'grace@example.com');
    expect(r.fallback.initFallback).toBe(true);
    expect(r.assertionOptions).toBe('');
    const process = await deps.processes.find(A, call.processId!);
    expect(process?.loginStarts?.map((s) => s.outcome)).toEqual(['no-passkeys']);
    expect(process?.userId).toBeUndefined();
  });

  it('falls back for a client the flow is not offered to', async () => {
    await userWith('hopper@example.com');
    const { call } = await init(INCAPABLE_BROWSER);
    const r = await start(call, 'hopper@example.com');
    expect(r.fallback).toEqual({ initFallback: true, identifier: 'hopper@example.com', error: { code: 'login_not_allowed', message: 'passkey login is not offered to this client' } });
    expect(ceremony.calls.startLogin).toHaveLength(0);
  });

  it('refuses a call without a process token, and one of another flow', async () => {
    expect(await rejection(start(callOf(), 'ada@example.com'))).toMatchObject({ kind: 'unauthenticated', type: 'process_token_required' });
    const append = await initFlow(deps, callOf(), { flow: 'append', client: CAPABLE_BROWSER, clientEnvHandle: undefined, flags: {}, invitationToken: '' });
    const appendCall = callOf((await readProcessToken(deps, A, append.processToken))!);
    expect(await rejection(start(appendCall, 'ada@example.com'))).toMatchObject({ kind: 'permission_denied', type: 'wrong_process' });
  });

  it('passes the ceremony refusing the start on unchanged', async () => {
    await userWith('lamarr@example.com');
    const refusal = invalidArgument('client_information_invalid', 'the ceremony refused it');
    ceremony.failures.startLogin = refusal;
    const { call } = await init();
    await expect(start(call, 'lamarr@example.com')).rejects.toBe(refusal);
  });
});

describe('F9 login finish', () => {
  it('logs the user in: a session token for the user, signedPasskeyData, and the operation remembered for the environment', async () => {
    const user = await userWith('turing@example.com', 'Alan Turing');
    ceremony.passkeyData = { id: 'cre-7', username: 'turing@example.com', challengeId: 'cha-7', ceremonyType: 'cda', aaguidDetails: { aaguid: 'a-1', name: 'iCloud Keychain', iconLight: 'l', iconDark: 'd' } };
    const { init: first, call } = await init();
    await start(call, 'turing@example.com');
    const r = await finishLogin(deps, call, { isConditionalUI: false, assertionResponse: '{"id":"cred"}', loadedMs: 300 });

    // The ceremony only verifies: the port has no way to ask it to sign (it would call back into connect).
    expect(ceremony.calls.finishLogin[0].input).toEqual({
      userId: user._id,
      processId: call.processId,
      assertionResponse: '{"id":"cred"}',
      trackingId: 'req-login',
      client: expect.objectContaining({ remoteAddress: '203.0.113.7' }),
    });
    // Connect signs signedPasskeyData itself, with exactly the claims of the SignPasskeyData RPC (B5/B7's signer).
    const signed = await verifyProjectToken(deps, A, r.signedPasskeyData, 'passkey_data');
    const byRpc = await verifyProjectToken(deps, A, await signPasskeyData(deps, A, { ...ceremony.passkeyData, userId: user._id }, 300), 'passkey_data');
    expect(signed).toEqual({ ...byRpc, iat: signed!.iat, exp: signed!.exp });
    expect(signed!.exp! - signed!.iat!).toBe(300);
    expect(signed).toMatchObject({
      kind: 'passkey_data',
      sub: user._id,
      userID: user._id,
      id: 'cre-7',
      username: 'turing@example.com',
      challengeID: 'cha-7',
      ceremonyType: 'cda',
      aaguidDetails: { aaguid: 'a-1', name: 'iCloud Keychain' },
    });
    expect(Object.keys(r).sort()).toEqual(['operation', 'session', 'signedPasskeyData']);
    expect(r.operation).toEqual({
      operationType: 'verify',
      identifierValue: 'turing@example.com',
      identifierType: 'email',
      ceremonyType: 'cda',
      aaguidDetails: { aaguid: 'a-1', name: 'iCloud Keychain', iconLight: 'l', iconDark: 'd' },
    });
    const claims = await verifyProjectToken(deps, A, r.session, 'session');
    expect(claims).toMatchObject({ sub: user._id, name: 'Alan Turing' });
    expect((await deps.processes.find(A, call.processId!))?.finished).toMatchObject({ operation: 'login', conditional: false, loadedMs: 300 });

    // The next init from this environment gets the operation back as client state.
    const again = await initFlow(deps, callOf(), { flow: 'login', client: CAPABLE_BROWSER, clientEnvHandle: first.newClientEnvHandle, flags: {}, invitationToken: '' });
    expect(again.newClientEnvHandle).toBeUndefined();
    const state = JSON.parse(Buffer.from(again.newClientState!, 'base64').toString('utf8'));
    expect(state.lastLogin.data).toEqual({ operationType: 'verify', identifierValue: 'turing@example.com', identifierType: 'email', ceremonyType: 'cda' });
  });

  it('logs a conditional-UI user in by the passkey alone, naming them by the passkey\'s user name', async () => {
    const user = await userWith('noether@example.com');
    ceremony.passkeyData = { id: 'cre-8', userId: user._id, username: 'noether@example.com', challengeId: 'cha-8', ceremonyType: 'local' };
    const { call } = await init();
    const r = await finishLogin(deps, call, { isConditionalUI: true, assertionResponse: '{"id":"c"}' });
    expect(ceremony.calls.finishMediation[0].input).toMatchObject({ processId: call.processId, trackingId: 'req-login' });
    expect(await verifyProjectToken(deps, A, r.signedPasskeyData, 'passkey_data')).toMatchObject({ sub: user._id, id: 'cre-8', username: 'noether@example.com' });
    expect(r.operation).toMatchObject({ operationType: 'verify', identifierValue: 'noether@example.com', ceremonyType: 'local' });
    expect(await verifyProjectToken(deps, A, r.session, 'session')).toMatchObject({ sub: user._id, name: 'noether@example.com' });
  });

  it('refuses a passkey that no longer exists with 404 credential_deleted, with and without conditional UI, and finishes neither process', async () => {
    await userWith('curie@example.com');
    const { call } = await init();
    await start(call, 'curie@example.com');
    ceremony.loginPasskeyDeleted = true;
    expect(await rejection(finishLogin(deps, call, { isConditionalUI: false, assertionResponse: '{}' }))).toMatchObject({ kind: 'not_found', type: 'credential_deleted' });

    const { call: conditional } = await init();
    ceremony.mediationCredentialDeleted = true;
    expect(await rejection(finishLogin(deps, conditional, { isConditionalUI: true, assertionResponse: '{}' }))).toMatchObject({ kind: 'not_found', type: 'credential_deleted' });
    // No session was issued (the process records a finished login): the page falls back to the application's login.
    for (const c of [call, conditional]) expect((await deps.processes.find(A, c.processId!))?.finished).toBeUndefined();
  });

  it('passes any other refusal of the assertion on unchanged, and finishes neither process', async () => {
    await userWith('lovelace@example.com');
    const { call } = await init();
    await start(call, 'lovelace@example.com');
    const refusal = invalidArgument('assertion_invalid', 'the signature does not verify');
    ceremony.failures.finishLogin = refusal;
    await expect(finishLogin(deps, call, { isConditionalUI: false, assertionResponse: '{}' })).rejects.toBe(refusal);
    expect((await deps.processes.find(A, call.processId!))?.finished).toBeUndefined();
  });

  it('refuses a finish before the start, and one for a client the flow is not offered to', async () => {
    const { call } = await init();
    expect(await rejection(finishLogin(deps, call, { isConditionalUI: false, assertionResponse: '{}' }))).toMatchObject({ kind: 'failed_precondition', type: 'login_not_started' });
    const { call: incapable } = await init(INCAPABLE_BROWSER);
    expect(await rejection(finishLogin(deps, incapable, { isConditionalUI: true, assertionResponse: '{}' }))).toMatchObject({ kind: 'permission_denied', type: 'login_not_allowed' });
    expect(ceremony.calls.finishLogin).toHaveLength(0);
    expect(ceremony.calls.finishMediation).toHaveLength(0);
  });

  it('reads the project, the user and the identifiers once, and opens the signing key once, for both tokens', async () => {
    const user = await userWith('hopper@example.com', 'Grace Hopper');
    ceremony.passkeyData = { id: 'cre-10', username: 'hopper@example.com', challengeId: 'cha-10', ceremonyType: 'local' };
    const { call } = await init();
    await start(call, 'hopper@example.com');
    const reads: string[] = [];
    const counted = <T extends object>(name: string, store: T): T =>
      new Proxy(store, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          return typeof value === 'function' ? (...args: unknown[]) => (reads.push(`${name}.${String(key)}`), value.apply(target, args)) : value;
        },
      });
    const decrypts: string[] = [];
    const masterKey = deps.masterKey;
    const countingDeps: ConnectFlowDeps = {
      ...deps,
      projects: counted('projects', deps.projects),
      users: counted('users', deps.users),
      identifiers: counted('identifiers', deps.identifiers),
      sessions: counted('sessions', deps.sessions),
      processes: counted('processes', deps.processes),
      clientEnvs: counted('clientEnvs', deps.clientEnvs),
      // Every decryption of a sealed signing key goes through the master key's bytes; count reads of it.
      get masterKey() {
        decrypts.push('masterKey');
        return masterKey;
      },
    };
    const r = await finishLogin(countingDeps, call, { isConditionalUI: false, assertionResponse: '{"id":"cred"}' });
    expect(await verifyProjectToken(deps, A, r.session, 'session')).toMatchObject({ sub: user._id });
    expect(await verifyProjectToken(deps, A, r.signedPasskeyData, 'passkey_data')).toMatchObject({ sub: user._id });
    expect(reads.sort()).toEqual(['clientEnvs.setLastLogin', 'identifiers.listForUser', 'processes.find', 'processes.update', 'projects.find', 'sessions.insertSession', 'users.find']);
    expect(decrypts).toHaveLength(1);
    // One way: the ceremony was asked to verify, once, and nothing else.
    expect(Object.fromEntries(Object.entries(ceremony.calls).filter(([, calls]) => calls.length > 0).map(([m, calls]) => [m, calls.length]))).toEqual({ startMediation: 1, startLogin: 1, finishLogin: 1 });
  });

  it('refuses a passkey whose user was deleted in the meantime', async () => {
    ceremony.passkeyData = { id: 'cre-9', userId: 'usr-404', username: 'gone@example.com', challengeId: 'cha-9', ceremonyType: 'local' };
    const { call } = await init();
    expect(await rejection(finishLogin(deps, call, { isConditionalUI: true, assertionResponse: '{}' }))).toMatchObject({ kind: 'failed_precondition', type: 'user_not_found' });
  });
});
