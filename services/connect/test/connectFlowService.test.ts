/**
 * ConnectFlowService (frontend /v2/connect/*) served in memory behind the production interceptors,
 * called through a real client with the headers the gateway sets after verifying a process token.
 * What is tested here is the handler layer: every RPC once on a realistic path over the fake
 * ceremony port, the proto ⇄ domain mapping (field names, int64, optional fields absent or present)
 * and how a domain error reaches the caller as a Connect code with its ErrorInfo type. The flows'
 * rules themselves are tested on the domain (connectLoginFlow, connectAppendFlow).
 */
import { toJson, type MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import type { FrontendClientInformationSchema } from '../../../gen/passkeyauth/common/v1/client_information_pb.js';
import {
  AppendInitResponseSchema,
  ConnectFlowService,
  LoginFinishResponseSchema,
  LoginInitResponseSchema,
  LoginStartResponseSchema,
  ManageListResponseSchema,
} from '../../../gen/passkeyauth/connect/v1/connect_flow_service_pb.js';
import { HEADERS } from '../../runtime/context.js';
import { invalidArgument } from '../../runtime/errors.js';
import { createConnectToken } from '../src/connect-tokens/domain/createConnectToken.js';
import { ensureUserForIdentifier } from '../src/connect-flows/domain/ensureUserForIdentifier.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { verifyProjectToken } from '../src/projects/domain/verifyProjectToken.js';
import { ASSERTION_OPTIONS, ATTESTATION_OPTIONS, FakeCeremonies, MEDIATION_OPTIONS, passkey } from '../../../test/kit/fakeCeremonyAndChallenge.js';
import { inMemoryTransport, startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let ceremony: FakeCeremonies;
let rpc: Client<typeof ConnectFlowService>;
let A: string;

beforeAll(async () => {
  env = await startTestEnv();
  A = (await createProject(env.deps, { name: 'Connect handlers', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
});
afterAll(() => env?.close());

/** The RPCs this file called (by the client's method name): the last test checks it named them all. */
const called = new Set<string>();
function recording<T extends object>(client: T): T {
  return new Proxy(client, {
    get(target, name, receiver) {
      called.add(String(name));
      return Reflect.get(target, name, receiver) as unknown;
    },
  });
}
beforeEach(() => {
  ceremony = new FakeCeremonies();
  rpc = recording(createClient(ConnectFlowService, inMemoryTransport({ ...env.deps, ceremony })));
});

/** The browser as the web SDK describes itself at init (passkeys and autofill available). */
const CAPABLE: MessageInitShape<typeof FrontendClientInformationSchema> = { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true, clientCapabilities: { hybridTransport: true } };
const INCAPABLE: MessageInitShape<typeof FrontendClientInformationSchema> = { isUserVerifyingPlatformAuthenticatorAvailable: false, isConditionalMediationAvailable: false };

/**
 * The headers the gateway sets on a frontend call: request ID, project, the end user's address and
 * browser, and, for a verified process token, its kind, process and family (gateway/src: the
 * bearer authenticator; here the token is verified the same way, with the project's key).
 */
async function as(processToken?: string) {
  const headers: Record<string, string> = { [HEADERS.requestId]: 'req-handler', [HEADERS.projectId]: A, [HEADERS.clientAddress]: '203.0.113.7', [HEADERS.userAgent]: 'Mozilla/5.0 (handler test)' };
  if (processToken) {
    const claims = await verifyProjectToken(env.deps, A, processToken, 'process');
    if (!claims) throw new Error('not a process token of the project');
    headers[HEADERS.tokenKind] = 'process';
    headers[HEADERS.processId] = String(claims.sub);
    if (claims.family) headers[HEADERS.processFamily] = String(claims.family);
  }
  return { headers };
}

/** A failed call as the caller sees it: the Connect code and the ErrorInfo type (and fields). */
async function rpcError(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!err) throw new Error('expected the call to fail');
  const ce = ConnectError.from(err);
  const info = ce.findDetails(ErrorInfoSchema)[0];
  return { code: ce.code, type: info?.type ?? '', fields: info?.validation.map((v) => v.field) ?? [] };
}

const loginInit = async (clientInformation = CAPABLE, clientEnvHandle?: string) =>
  rpc.loginInit({ clientInformation: { ...clientInformation, ...(clientEnvHandle ? { clientEnvHandle } : {}) }, flags: {}, invitationToken: '' }, await as());

describe('login (F5 init, F8 start, F9 finish)', () => {
  it('maps init: token, expiresAt (int64, the token\'s exp), flags, optional fields present for a capable browser', async () => {
    const before = Math.floor(Date.now() / 1000);
    const r = await loginInit();
    const claims = await verifyProjectToken(env.deps, A, r.token, 'process');
    expect(claims).toMatchObject({ family: 'connect' });
    expect(typeof r.expiresAt).toBe('bigint');
    expect(Number(r.expiresAt)).toBe(claims!.exp);
    expect(Number(r.expiresAt)).toBeGreaterThan(before);
    expect(r).toMatchObject({ frontendApiUrl: 'http://localhost:8080', loginAllowed: true, conditionalUiChallenge: MEDIATION_OPTIONS });
    expect(r.flags['conditional-ui-allowed']).toBe('true');
    expect(r.newClientEnvHandle).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // A new environment has no state yet: absent, not "".
    expect(r.newClientState).toBeUndefined();
    // The JSON names the SDK reads.
    const json = toJson(LoginInitResponseSchema, r) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(['conditionalUIChallenge', 'expiresAt', 'flags', 'frontendApiUrl', 'loginAllowed', 'newClientEnvHandle', 'token']);

    // The gateway's headers became the call the ceremony sees.
    expect(ceremony.calls.startMediation[0].call).toMatchObject({ projectId: A, requestId: 'req-handler', clientAddress: '203.0.113.7', userAgent: 'Mozilla/5.0 (handler test)' });
    expect(ceremony.calls.startMediation[0].input).toMatchObject({ processId: claims!.sub, client: { snapshot: { uvpaAvailable: true, conditionalMediationAvailable: true, capabilities: { hybridTransport: true } } } });
  });

  it('leaves the optional fields absent for a browser without passkeys, and a known environment gets no new handle', async () => {
    const first = await loginInit();
    const r = await loginInit(INCAPABLE, first.newClientEnvHandle);
    expect(r.loginAllowed).toBe(false);
    expect(r.conditionalUiChallenge).toBeUndefined();
    expect(r.newClientEnvHandle).toBeUndefined();
    expect(r.flags['conditional-ui-allowed']).toBe('false');
    expect(Object.keys(toJson(LoginInitResponseSchema, r) as object)).not.toContain('conditionalUIChallenge');
    expect(ceremony.calls.startMediation).toHaveLength(1);
  });

  it('starts and finishes a login: assertion options, then a session token, signedPasskeyData and the passkey operation', async () => {
    const { user } = await ensureUserForIdentifier(env.deps, A, { type: 'email', value: 'turing@example.com' }, 'Alan Turing');
    const init = await loginInit();
    const call = await as(init.token);

    const start = await rpc.loginStart({ identifier: ' Turing@Example.com ', source: 'text-field', loadedMs: 120n, loginConnectToken: '', identifierHintAvailable: true, oneTapMeta: { ts: 1700000000n, source: 'ls' } }, call);
    expect(start).toMatchObject({ assertionOptions: ASSERTION_OPTIONS, isCda: false, preferImmediatelyAvailable: true });
    // No fallback: the message is there (the SDK reads initFallback), its optional fields are not.
    expect(start.fallbackOperationError).toMatchObject({ initFallback: false });
    expect(start.fallbackOperationError!.identifier).toBeUndefined();
    expect(start.fallbackOperationError!.error).toBeUndefined();
    expect(Object.keys(toJson(LoginStartResponseSchema, start) as object).sort()).toEqual(['assertionOptions', 'fallbackOperationError', 'preferImmediatelyAvailable']);
    const processId = String((await verifyProjectToken(env.deps, A, init.token, 'process'))!.sub);
    expect(ceremony.calls.startLogin[0].input).toMatchObject({ userId: user._id, processId });
    // The request's int64 fields reach the domain as numbers, its optional ones as given.
    expect((await env.deps.processes.find(A, processId))!.loginStarts).toMatchObject([
      { source: 'text-field', loadedMs: 120, identifierHintAvailable: true, oneTapMeta: { ts: 1700000000, source: 'ls' }, loginConnectTokenPresented: false },
    ]);

    ceremony.passkeyData = { id: 'cre-7', username: 'turing@example.com', challengeId: 'cha-7', ceremonyType: 'cda', aaguidDetails: { aaguid: 'a-1', name: 'iCloud Keychain', iconLight: 'l', iconDark: 'd' } };
    const finish = await rpc.loginFinish({ isConditionalUi: false, assertionResponse: '{"id":"cred"}', loadedMs: 300n }, call);
    expect(await verifyProjectToken(env.deps, A, finish.session, 'session')).toMatchObject({ sub: user._id, name: 'Alan Turing' });
    // Connect signs signedPasskeyData itself (the ceremony only verified): the project's JWT of the passkey used.
    expect(await verifyProjectToken(env.deps, A, finish.signedPasskeyData, 'passkey_data')).toMatchObject({ sub: user._id, id: 'cre-7', username: 'turing@example.com', ceremonyType: 'cda' });
    expect(finish.passkeyOperation).toMatchObject({ operationType: 'verify', identifierValue: 'turing@example.com', identifierType: 'email', ceremonyType: 'cda', aaguidDetails: { aaguid: 'a-1', name: 'iCloud Keychain' } });
    expect(Object.keys(toJson(LoginFinishResponseSchema, finish) as object).sort()).toEqual(['passkeyOperation', 'session', 'signedPasskeyData']);
    expect(ceremony.calls.finishLogin[0].input).toMatchObject({ userId: user._id, assertionResponse: '{"id":"cred"}', trackingId: 'req-handler' });
  });

  it('answers an unknown identifier with the fallback, its identifier and error present', async () => {
    const call = await as((await loginInit()).token);
    const start = await rpc.loginStart({ identifier: 'nobody@example.com', source: 'text-field', loginConnectToken: '', loadedMs: 50n }, call);
    expect(start.assertionOptions).toBe('');
    expect(start.fallbackOperationError).toMatchObject({ initFallback: true, identifier: 'nobody@example.com', error: { code: 'passkey_login_unavailable' } });
    expect(start.preferImmediatelyAvailable).toBeUndefined();
    expect(ceremony.calls.startLogin).toHaveLength(0);
  });

  it('records an event the page observed, with the process and the gateway\'s view of the client', async () => {
    const init = await loginInit();
    await rpc.createEvent({ eventType: 'login-explicit-abort', message: 'NotAllowedError', challenge: 'YXNz' }, await as(init.token));
    expect(ceremony.calls.recordClientEvent).toHaveLength(1);
    const recorded = ceremony.calls.recordClientEvent[0];
    expect(recorded.call).toMatchObject({ projectId: A, requestId: 'req-handler' });
    expect(recorded.input).toMatchObject({ processId: String((await verifyProjectToken(env.deps, A, init.token, 'process'))!.sub), eventType: 'login-explicit-abort', message: 'NotAllowedError', challenge: 'YXNz' });
  });

  it('clears a process: echoes the token, and the process answers no further call (failed_precondition process_cleared)', async () => {
    const init = await loginInit();
    expect(await rpc.clearProcess({ processId: init.token }, await as())).toMatchObject({ processId: init.token });
    expect(await rpcError(rpc.createEvent({ eventType: 'login-error', message: '', challenge: '' }, await as(init.token)))).toEqual({ code: Code.FailedPrecondition, type: 'process_cleared', fields: [] });
    expect(ceremony.calls.recordClientEvent).toHaveLength(0);
  });
});

describe('append (F6 init, start, F10 finish)', () => {
  it('maps init, start and finish: processID, the ceremony\'s decision, the operation', async () => {
    ceremony.startedAppend = {
      appendAllow: true,
      attestationOptions: ATTESTATION_OPTIONS,
      detectionTags: [],
      decisionInsights: { tag: 'ok', isRestrictedBrowser: false, variant: 'after-hybrid', auto: true, conditional: false },
    };
    const init = await rpc.appendInit({ clientInformation: CAPABLE, flags: {}, invitationToken: '', situation: 'after-hybrid' }, await as());
    expect(init).toMatchObject({ appendAllowed: true, frontendApiUrl: 'http://localhost:8080' });
    expect(Number(init.expiresAt)).toBe((await verifyProjectToken(env.deps, A, init.processId, 'process'))!.exp);
    expect(Object.keys(toJson(AppendInitResponseSchema, init) as object)).toContain('processID');
    const call = await as(init.processId);

    const { secret } = await createConnectToken(env.deps, { projectId: A, type: 'passkey-append', identifier: 'ada@example.com', displayName: 'Ada Lovelace' });
    const start = await rpc.appendStart({ appendTokenValue: secret, loadedMs: 80n }, call);
    expect(start).toMatchObject({ attestationOptions: ATTESTATION_OPTIONS, variant: 'after-hybrid', isRestrictedBrowser: false, autoAppend: true, conditionalAppend: false });
    const userId = (await env.deps.identifiers.findByValue(A, 'email', 'ada@example.com'))!.userId;
    // forcePasskeyAppend absent is false.
    expect(ceremony.calls.startAppend[0].input).toMatchObject({ userId, forcePasskeyAppend: false });

    ceremony.passkeyData = { id: 'cre-5', username: 'ada@example.com', challengeId: 'cha-5', ceremonyType: 'local' };
    const finish = await rpc.appendFinish({ attestationResponse: '{"id":"new"}', completionType: 'auto', customData: { plan: 'pro' } }, call);
    expect(finish.passkeyOperation).toMatchObject({ operationType: 'append', identifierValue: 'ada@example.com', identifierType: 'email', ceremonyType: 'local' });
    expect(finish.passkeyOperation!.aaguidDetails).toBeUndefined();
    expect(ceremony.calls.finishAppend[0].input).toMatchObject({ userId, attestationResponse: '{"id":"new"}' });
  });

  it('maps a login process on an append endpoint to permission_denied wrong_process', async () => {
    const login = await loginInit();
    const { secret } = await createConnectToken(env.deps, { projectId: A, type: 'passkey-append', identifier: 'wrong@example.com', displayName: 'W' });
    expect(await rpcError(rpc.appendStart({ appendTokenValue: secret, loadedMs: 70n }, await as(login.token)))).toEqual({ code: Code.PermissionDenied, type: 'wrong_process', fields: [] });
    expect(ceremony.calls.startAppend).toHaveLength(0);
  });
});

describe('manage (F7 init, list, delete)', () => {
  it('lists the user\'s passkeys (createdMs and lastUsedMs as int64) and deletes one, echoing its ID', async () => {
    const { user } = await ensureUserForIdentifier(env.deps, A, { type: 'email', value: 'manage@example.com' }, undefined);
    ceremony.passkeys.set(user._id, [passkey('cre-1', 'Y3JlZC0x', '2026-11-01T10:00:00'), passkey('cre-2', 'Y3JlZC0y', '2026-11-02T10:00:00')]);
    const init = await rpc.manageInit({ clientInformation: CAPABLE, flags: {}, invitationToken: '' }, await as());
    expect(init).toMatchObject({ manageAllowed: true, frontendApiUrl: 'http://localhost:8080' });
    expect(typeof init.expiresAt).toBe('bigint');
    const call = await as(init.processId);

    const list = await rpc.manageList({ connectToken: (await createConnectToken(env.deps, { projectId: A, type: 'passkey-list', identifier: 'manage@example.com' })).secret }, call);
    expect(list.rpId).toBe('localhost');
    expect(list.userId).toBe(ceremony.userHandle);
    expect(list.passkeys.map((p) => p.id)).toEqual(['cre-1', 'cre-2']);
    const [first] = list.passkeys;
    expect(first).toMatchObject({ credentialId: 'Y3JlZC0x', attestationType: 'none', transport: ['internal', 'hybrid'], backupEligible: true, backupState: true, sourceOs: 'macOS', sourceBrowser: 'Chrome', status: 'active', tags: [] });
    expect(typeof first.createdMs).toBe('bigint');
    expect(first.createdMs).toBe(BigInt(Date.parse('2026-11-01T10:00:00Z')));
    const json = toJson(ManageListResponseSchema, list) as { rpID: string; userID: string; passkeys: Record<string, unknown>[] };
    expect(json.rpID).toBe('localhost');
    expect(Object.keys(json.passkeys[0])).toEqual(expect.arrayContaining(['credentialID', 'authenticatorAAGUID', 'sourceOS', 'createdMs', 'lastUsedMs']));

    const del = await rpc.manageDelete({ connectToken: (await createConnectToken(env.deps, { projectId: A, type: 'passkey-delete', identifier: 'manage@example.com' })).secret, credentialId: 'cre-1' }, call);
    expect(del.credentialId).toBe('cre-1');
    expect(ceremony.calls.deletePasskey[0].input).toEqual({ userId: user._id, passkeyId: 'cre-1' });
    expect(ceremony.passkeys.get(user._id)!.map((p) => p.id)).toEqual(['cre-2']);
  });
});

describe('errors as the caller sees them', () => {
  it('a call without a project is unauthenticated', async () => {
    expect(await rpcError(rpc.loginInit({ clientInformation: CAPABLE, flags: {}, invitationToken: '' }))).toMatchObject({ code: Code.Unauthenticated, type: 'missing_project' });
  });

  it('a request outside the proto rules is invalid_argument naming the field, before any work', async () => {
    const call = await as((await loginInit()).token);
    expect(await rpcError(rpc.loginStart({ identifier: 'a@example.com', source: 'telepathy', loginConnectToken: '', loadedMs: 50n }, call))).toMatchObject({ code: Code.InvalidArgument, type: 'validation_error', fields: ['source'] });
    expect(ceremony.calls.startLogin).toHaveLength(0);
  });

  it('a domain error keeps its kind and type: a token that is no process token is invalid_argument invalid_process_token', async () => {
    expect(await rpcError(rpc.clearProcess({ processId: 'not-a-token' }, await as()))).toEqual({ code: Code.InvalidArgument, type: 'invalid_process_token', fields: ['processId'] });
  });

  it('a refusal of the ceremony port passes through with its kind and type', async () => {
    await ensureUserForIdentifier(env.deps, A, { type: 'email', value: 'refused@example.com' }, undefined);
    const call = await as((await loginInit()).token);
    await rpc.loginStart({ identifier: 'refused@example.com', source: 'text-field', loginConnectToken: '', loadedMs: 50n }, call);
    ceremony.failures.finishLogin = invalidArgument('assertion_invalid', 'the signature does not verify');
    expect(await rpcError(rpc.loginFinish({ isConditionalUi: false, assertionResponse: '{}', loadedMs: 60n }, call))).toEqual({ code: Code.InvalidArgument, type: 'assertion_invalid', fields: [] });
    // A deleted passkey (the port's passkeyDeleted) is the flow's own answer: not_found credential_deleted.
    ceremony.loginPasskeyDeleted = true;
    expect(await rpcError(rpc.loginFinish({ isConditionalUi: false, assertionResponse: '{}', loadedMs: 60n }, call))).toMatchObject({ code: Code.NotFound, type: 'credential_deleted' });
  });

  it('an endpoint that needs a process token refuses a call without one (unauthenticated process_token_required)', async () => {
    expect(await rpcError(rpc.loginFinish({ isConditionalUi: false, assertionResponse: '{}', loadedMs: 60n }, await as()))).toMatchObject({ code: Code.Unauthenticated, type: 'process_token_required' });
  });
});

describe('coverage', () => {
  it('this file called every RPC of ConnectFlowService (a method added later without a test here fails)', () => {
    expect(ConnectFlowService.methods.map((m) => m.localName).filter((name) => !called.has(name))).toEqual([]);
  });
});
