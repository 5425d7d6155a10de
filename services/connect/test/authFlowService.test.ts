/**
 * AuthFlowService (frontend /v2/auth/*, /v2/process-config) served in memory behind the production
 * interceptors, called through a real client with the headers the gateway sets after verifying a
 * process token. What is tested here is the handler layer: every RPC once on a realistic path
 * (sign-up with a passkey or a code, login with a passkey or by autofill) over the fakes of the
 * ceremony and challenge ports, the proto ⇄ domain mapping (the Block response, int64, optional
 * fields absent or present) and how a domain error reaches the caller as a Connect code with its
 * ErrorInfo type. The flows' rules themselves are tested on the domain (authFlows.test.ts).
 */
import { toJson, type MessageInitShape } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import type { FrontendClientInformationSchema } from '../../../gen/passkeyauth/common/v1/client_information_pb.js';
import { AuthFlowService, BlockBodySchema, GetProcessConfigResponseSchema, ProcessInitResponseSchema, type BlockBody, type ProcessResponse } from '../../../gen/passkeyauth/connect/v1/auth_flow_service_pb.js';
import { ConnectFlowService } from '../../../gen/passkeyauth/connect/v1/connect_flow_service_pb.js';
import { HEADERS } from '../../runtime/context.js';
import { invalidArgument } from '../../runtime/errors.js';
import { ensureUserForIdentifier } from '../src/connect-flows/domain/ensureUserForIdentifier.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { verifyProjectToken } from '../src/projects/domain/verifyProjectToken.js';
import { ASSERTION_OPTIONS, ATTESTATION_OPTIONS, FakeCeremonies, FakeOneTimeCodes, MEDIATION_OPTIONS } from '../../../test/kit/fakeCeremonyAndChallenge.js';
import { inMemoryTransport, startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let ceremony: FakeCeremonies;
let codes: FakeOneTimeCodes;
let rpc: Client<typeof AuthFlowService>;
let connect: Client<typeof ConnectFlowService>;
/** A project serving the self-service flows, and one that does not (the default). */
let S: string;
let D: string;

beforeAll(async () => {
  env = await startTestEnv();
  const base = { rpId: 'localhost', origins: ['http://localhost:3000'] };
  S = (await createProject(env.deps, { name: 'Auth handlers', ...base, selfServiceFlows: 'enabled' })).project._id;
  D = (await createProject(env.deps, { name: 'Connect only', ...base })).project._id;
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
  codes = new FakeOneTimeCodes();
  codes.wrongCode = () => invalidArgument('challenge_value_invalid', 'the value is wrong; 4 attempt(s) left');
  const transport = inMemoryTransport({ ...env.deps, ceremony, challenges: codes });
  rpc = recording(createClient(AuthFlowService, transport));
  connect = createClient(ConnectFlowService, transport);
});

const CAPABLE: MessageInitShape<typeof FrontendClientInformationSchema> = { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true };
const INCAPABLE: MessageInitShape<typeof FrontendClientInformationSchema> = { isUserVerifyingPlatformAuthenticatorAvailable: false, isConditionalMediationAvailable: false };

/**
 * The headers the gateway sets on a frontend call: request ID, project, the end user's address and
 * browser, and, for a verified process token, its kind, process and family.
 */
async function as(processToken?: string, projectId = S) {
  const headers: Record<string, string> = { [HEADERS.requestId]: 'req-auth-handler', [HEADERS.projectId]: projectId, [HEADERS.clientAddress]: '192.0.2.9', [HEADERS.userAgent]: 'Mozilla/5.0 (handler test)' };
  if (processToken) {
    const claims = await verifyProjectToken(env.deps, projectId, processToken, 'process');
    if (!claims) throw new Error('not a process token of the project');
    headers[HEADERS.tokenKind] = 'process';
    headers[HEADERS.processId] = String(claims.sub);
    if (claims.family) headers[HEADERS.processFamily] = String(claims.family);
  }
  return { headers };
}

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

interface PlainBlock {
  block: string;
  authType: string;
  data: Record<string, unknown>;
  alternatives: PlainBlock[];
  error?: { code: string };
  continueOnOtherDevice?: { reason: string };
}

/**
 * A BlockBody with its data as JSON (`data` is the set member of the oneof, the message of its
 * block type: the member for "passkey-append" is passkeyAppend).
 */
function plainBlock(body: BlockBody): PlainBlock {
  const member = body.data.case;
  expect(member, `the data member of ${body.block}`).toBe(body.block.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()));
  const data = toJson(BlockBodySchema.field[member!].message!, body.data.value!) as Record<string, unknown>;
  return { ...(body as unknown as PlainBlock), data, alternatives: body.alternatives.map(plainBlock) };
}

/** The block of a Block response, as plain data (`data` is the block's JSON object). */
function blockOf(r: { processResponse?: ProcessResponse }): PlainBlock {
  return plainBlock(r.processResponse!.blockBody!);
}

/** process/init: the token (as the call's headers) and the answer. */
async function init(client = CAPABLE, preferredBlock = 'signup-init') {
  const r = await rpc.processInit({ clientInformation: client, preferredBlock }, await as());
  return { r, call: await as(r.token) };
}

async function sessionSub(r: { processResponse?: ProcessResponse }) {
  const block = blockOf(r);
  expect(block.block).toBe('completed');
  const claims = await verifyProjectToken(env.deps, S, String(block.data.shortSession), 'session');
  expect(String(block.data.longSession)).not.toBe('');
  return claims?.sub;
}

describe('process config and init', () => {
  it('GetProcessConfig answers every project (no flow, no state) with the client-side process ID', async () => {
    for (const project of [S, D]) {
      const r = await rpc.getProcessConfig({}, await as(undefined, project));
      expect(r).toMatchObject({ useServerSideProcessId: false, frontendApiUrl: 'http://localhost:8080' });
      expect(toJson(GetProcessConfigResponseSchema, r)).toEqual({ frontendApiUrl: 'http://localhost:8080' });
    }
  });

  it('ProcessInit maps the token, expiresAt (int64, the token\'s exp), the new environment and the Block response', async () => {
    const { r } = await init(CAPABLE, 'login-init');
    const claims = await verifyProjectToken(env.deps, S, r.token, 'process');
    expect(claims).toMatchObject({ family: 'auth' });
    expect(typeof r.expiresAt).toBe('bigint');
    expect(Number(r.expiresAt)).toBe(claims!.exp);
    expect(r.newClientEnvHandle).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // The common facts of the project; init names its process in token, not in newProcess.
    expect(r.processResponse!.common).toMatchObject({ appName: 'Auth handlers', frontendApiUrl: 'http://localhost:8080', hideBadge: false, environment: 'development' });
    expect(r.processResponse!.newProcess).toBeUndefined();
    const block = blockOf(r);
    expect(block).toMatchObject({ block: 'login-init', authType: 'login', data: { conditionalUIChallenge: MEDIATION_OPTIONS } });
    expect(block.alternatives.map((b) => b.block)).toEqual(['signup-init']);
    expect(block.error).toBeUndefined();
    expect(block.continueOnOtherDevice).toBeUndefined();
    const json = toJson(ProcessInitResponseSchema, r) as { processResponse: Record<string, unknown> };
    expect(Object.keys(json).sort()).toEqual(['expiresAt', 'newClientEnvHandle', 'processResponse', 'token']);
    expect(Object.keys(json.processResponse).sort()).toEqual(['blockBody', 'common']);
    // The gateway's headers became the call the ceremony sees.
    expect(ceremony.calls.startMediation[0].call).toMatchObject({ projectId: S, requestId: 'req-auth-handler', clientAddress: '192.0.2.9', userAgent: 'Mozilla/5.0 (handler test)' });
    expect(ceremony.calls.startMediation[0].input).toMatchObject({ processId: String(claims!.sub) });
  });
});

describe('F1 sign-up', () => {
  it('with a passkey: SignupInit → ProcessGet → PasskeyAppendStart → PasskeyAppendFinish → ProcessComplete', async () => {
    const { call } = await init();
    const signup = await rpc.signupInit({ identifiers: [{ type: 'email', identifier: 'Ada@Example.com' }], fullName: 'Ada Lovelace' }, call);
    // The call continued the process of its token: no newProcess.
    expect(signup.processResponse!.newProcess).toBeUndefined();
    expect(blockOf(signup)).toMatchObject({ block: 'passkey-append', authType: 'signup', data: { challenge: ATTESTATION_OPTIONS, identifierValue: 'ada@example.com', identifierType: 'email' } });
    expect(blockOf(signup).alternatives.map((b) => b.block)).toEqual(['email-verify']);
    const userId = ceremony.calls.startAppend[0].input as { userId: string };
    expect(await env.deps.users.find(S, userId.userId)).toMatchObject({ fullName: 'Ada Lovelace', status: 'pending' });

    expect(blockOf(await rpc.processGet({ preferredBlock: '' }, call))).toMatchObject({ block: 'passkey-append', data: { challenge: ATTESTATION_OPTIONS } });
    // web-core 3.x sends clientInformation: {} here: it says nothing, and the append is still offered.
    expect(blockOf(await rpc.passkeyAppendStart({ clientInformation: {} }, call))).toMatchObject({ block: 'passkey-append', data: { challenge: ATTESTATION_OPTIONS } });
    expect(blockOf(await rpc.passkeyAppendFinish({ signedChallenge: '{"id":"att"}' }, call))).toMatchObject({ block: 'passkey-appended', authType: 'signup' });
    expect(ceremony.calls.finishAppend[0].input).toMatchObject({ attestationResponse: '{"id":"att"}', trackingId: 'req-auth-handler' });

    const done = await rpc.processComplete({}, call);
    expect(await sessionSub(done)).toBe(userId.userId);
    expect(blockOf(done).data.passkeyOperation).toEqual({ operationType: 'append', identifierValue: 'ada@example.com', identifierType: 'email', ceremonyType: 'local' });
  });

  it('with a code: SignupInit without a token (newProcess) → BlockSkip → IdentifierVerifyStatus → IdentifierUpdate → IdentifierVerifyStart → IdentifierVerifyFinish', async () => {
    // A sign-up may start without process/init: the answer names the new process.
    const signup = await rpc.signupInit({ identifiers: [{ type: 'email', identifier: 'typo@example.com' }] }, await as());
    const started = signup.processResponse!.newProcess!;
    expect(typeof started.expiresAt).toBe('bigint');
    expect(Number(started.expiresAt)).toBe((await verifyProjectToken(env.deps, S, started.token, 'process'))!.exp);
    const call = await as(started.token);
    expect(blockOf(signup)).toMatchObject({ block: 'passkey-append', authType: 'signup', data: { identifierValue: 'typo@example.com' } });
    // Skipping the append sends the code instead (the user is not proven yet).
    expect(blockOf(await rpc.blockSkip({}, call))).toMatchObject({ block: 'email-verify', authType: 'signup', data: { verificationMethod: 'email-otp', identifier: 'typo@example.com' } });
    expect(codes.sent.map((s) => s.input.identifierValue)).toEqual(['typo@example.com']);

    // Polling changes nothing and says "still waiting": no continueOnOtherDevice.
    const waiting = blockOf(await rpc.identifierVerifyStatus({}, call));
    expect(waiting).toMatchObject({ block: 'email-verify' });
    expect(waiting.continueOnOtherDevice).toBeUndefined();

    const updated = blockOf(await rpc.identifierUpdate({ identifierType: 'email', value: 'Fixed@Example.com' }, call));
    expect(updated).toMatchObject({ block: 'email-verify', data: { identifier: 'fixed@example.com' } });
    expect(blockOf(await rpc.identifierVerifyStart({ identifierType: 'email', verificationType: 'email-otp' }, call))).toMatchObject({ block: 'email-verify', data: { identifier: 'fixed@example.com' } });
    expect(codes.sent.at(-1)!.input.identifierValue).toBe('fixed@example.com');
    // A resend right away: resource_exhausted (429 at the gateway).
    expect(await rpcError(rpc.identifierVerifyStart({ identifierType: 'email', verificationType: 'email-otp' }, call))).toMatchObject({ code: Code.ResourceExhausted, type: 'resend_too_early' });

    // A wrong code keeps the block, with its error present.
    const wrong = blockOf(await rpc.identifierVerifyFinish({ code: '000000', identifierType: 'email', verificationType: 'email-otp' }, call));
    expect(wrong).toMatchObject({ block: 'email-verify', error: { code: 'invalid_code' } });
    // The right code proves the address; the passkey is offered once more, and Skip completes.
    const proven = blockOf(await rpc.identifierVerifyFinish({ code: FakeOneTimeCodes.CODE, identifierType: 'email', verificationType: 'email-otp', isNewDevice: false }, call));
    expect(proven).toMatchObject({ block: 'passkey-append', data: { identifierValue: 'fixed@example.com' } });
    const userId = await sessionSub(await rpc.blockSkip({}, call));
    expect(await env.deps.identifiers.findByValue(S, 'email', 'fixed@example.com')).toMatchObject({ userId, status: 'verified', claimed: true });

    // Polled after the end: the block says where the process went.
    expect(blockOf(await rpc.identifierVerifyStatus({}, call)).continueOnOtherDevice).toMatchObject({ reason: 'process-already-completed' });
  });

});

describe('F2 login', () => {
  it('with a passkey: AuthLoginInit → PasskeyLoginStart → PasskeyLoginFinish', async () => {
    const { user } = await ensureUserForIdentifier(env.deps, S, { type: 'email', value: 'turing@example.com' }, undefined);
    const { call } = await init(CAPABLE, 'login-init');
    const login = await rpc.authLoginInit({ identifierValue: 'turing@example.com', isPhone: false }, call);
    expect(blockOf(login)).toMatchObject({ block: 'passkey-verify', authType: 'login', data: { challenge: ASSERTION_OPTIONS, identifierValue: 'turing@example.com' } });
    expect(ceremony.calls.startLogin[0].input).toMatchObject({ userId: user._id });

    expect(blockOf(await rpc.passkeyLoginStart({}, call))).toMatchObject({ block: 'passkey-verify', data: { challenge: ASSERTION_OPTIONS } });
    expect(ceremony.calls.startLogin).toHaveLength(2);

    ceremony.passkeyData = { id: 'cre-3', username: 'turing@example.com', challengeId: 'cha-3', ceremonyType: 'cda' };
    const done = await rpc.passkeyLoginFinish({ signedChallenge: '{"id":"a"}' }, call);
    expect(await sessionSub(done)).toBe(user._id);
    expect(ceremony.calls.finishLogin[0].input).toMatchObject({ userId: user._id, assertionResponse: '{"id":"a"}' });
  });

  it('by autofill: PasskeyMediationFinish names the user by the passkey', async () => {
    const { user } = await ensureUserForIdentifier(env.deps, S, { type: 'email', value: 'noether@example.com' }, undefined);
    ceremony.passkeyData = { id: 'cre-4', userId: user._id, username: 'noether@example.com', challengeId: 'cha-4', ceremonyType: 'local' };
    const { call } = await init(CAPABLE, 'login-init');
    const done = await rpc.passkeyMediationFinish({ signedChallenge: '{"id":"m"}' }, call);
    expect(await sessionSub(done)).toBe(user._id);
    expect(blockOf(done).data.passkeyOperation).toMatchObject({ operationType: 'verify', identifierValue: 'noether@example.com' });
  });

  it('PasskeyLoginStart where no passkey login is possible is failed_precondition passkey_login_unavailable', async () => {
    await ensureUserForIdentifier(env.deps, S, { type: 'email', value: 'nokeys@example.com' }, undefined);
    const { call } = await init(CAPABLE, 'login-init');
    await rpc.authLoginInit({ identifierValue: 'nokeys@example.com', isPhone: false }, call);
    ceremony.startedLogin = { loginAllow: false, assertionOptions: '' };
    expect(await rpcError(rpc.passkeyLoginStart({ clientInformation: INCAPABLE }, call))).toMatchObject({ code: Code.FailedPrecondition, type: 'passkey_login_unavailable' });
  });
});

describe('resetting and events', () => {
  it('ProcessReset answers the first block with newProcess (token, int64 expiresAt); EventCreate records on the process', async () => {
    const { call } = await init();
    await rpc.signupInit({ identifiers: [{ type: 'email', identifier: 'reset@example.com' }] }, call);
    const reset = await rpc.processReset({}, call);
    expect(blockOf(reset)).toMatchObject({ block: 'signup-init', authType: 'signup' });
    const fresh = reset.processResponse!.newProcess!;
    const claims = await verifyProjectToken(env.deps, S, fresh.token, 'process');
    expect(Number(fresh.expiresAt)).toBe(claims!.exp);

    await rpc.eventCreate({ eventType: 'login-error', challenge: 'c-1' }, await as(fresh.token));
    await rpc.eventCreate({ eventType: 'login-explicit-abort' }, await as(fresh.token));
    const stored = await env.store.db.collection<{ events: { type: string; challengeLength?: number }[] }>('auth_processes').findOne({ _id: claims!.sub as never });
    // The optional challenge: recorded (as a digest) when given, absent when not.
    expect(stored!.events.map((e) => [e.type, e.challengeLength])).toEqual([
      ['login-error', 3],
      ['login-explicit-abort', undefined],
    ]);
  });
});

describe('errors as the caller sees them', () => {
  it('a project without self-service flows: permission_denied self_service_disabled', async () => {
    expect(await rpcError(rpc.processInit({ clientInformation: CAPABLE, preferredBlock: 'signup-init' }, await as(undefined, D)))).toEqual({ code: Code.PermissionDenied, type: 'self_service_disabled', fields: [] });
  });

  it('a connect process token on an auth step: permission_denied wrong_process', async () => {
    const connectInit = await connect.loginInit({ clientInformation: CAPABLE, flags: {}, invitationToken: '' }, await as());
    expect(await rpcError(rpc.processGet({ preferredBlock: '' }, await as(connectInit.token)))).toEqual({ code: Code.PermissionDenied, type: 'wrong_process', fields: [] });
    expect(await rpcError(rpc.identifierVerifyStatus({}, await as(connectInit.token)))).toMatchObject({ code: Code.PermissionDenied, type: 'wrong_process' });
  });

  it('a step without a process token: unauthenticated process_token_required', async () => {
    expect(await rpcError(rpc.processComplete({}, await as()))).toMatchObject({ code: Code.Unauthenticated, type: 'process_token_required' });
  });

  it('a request outside the proto rules: invalid_argument naming the field, before any work', async () => {
    const { call } = await init();
    expect(await rpcError(rpc.identifierVerifyStart({ identifierType: 'email', verificationType: 'carrier-pigeon' }, call))).toMatchObject({ code: Code.InvalidArgument, type: 'validation_error', fields: ['verificationType'] });
    expect(codes.sent).toHaveLength(0);
  });

  it('a step in the wrong block: failed_precondition', async () => {
    const { call } = await init();
    expect((await rpcError(rpc.passkeyAppendFinish({ signedChallenge: '{}' }, call))).code).toBe(Code.FailedPrecondition);
    expect(ceremony.calls.finishAppend).toHaveLength(0);
  });
});

describe('coverage', () => {
  it('this file called every RPC of AuthFlowService (a method added later without a test here fails)', () => {
    expect(AuthFlowService.methods.map((m) => m.localName).filter((name) => !called.has(name))).toEqual([]);
  });
});
