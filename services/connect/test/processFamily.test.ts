/**
 * Process tokens carry their process's family (`family`: auth or connect) in a signed claim; the
 * sign-up/login steps decide by it which tokens they serve. A token signed before the claim existed
 * still resolves, by its process ID's prefix (processFamilyOf in shared/domain/flowCall.ts, the one fallback).
 */
import { createContextValues, createHandlerContext } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthFlowService } from '../../../gen/passkeyauth/connect/v1/auth_flow_service_pb.js';
import { projectIdKey, tokenProcessFamilyKey, tokenProcessIdKey } from '../../runtime/context.js';
import { DomainError } from '../../runtime/errors.js';
import type { AuthFlowDeps } from '../src/auth-flows/domain/authDeps.js';
import type { ConnectFlowDeps } from '../src/connect-flows/domain/flowDeps.js';
import { getVerificationStatus } from '../src/auth-flows/domain/getVerificationStatus.js';
import { initProcess } from '../src/auth-flows/domain/initProcess.js';
import { loadAuthProcess } from '../src/auth-flows/domain/loadAuthProcess.js';
import { recordProcessEvent } from '../src/auth-flows/domain/recordProcessEvent.js';
import { findActiveProcess } from '../src/connect-flows/domain/findActiveProcess.js';
import type { FlowCall } from '../src/shared/domain/flowCall.js';
import { initFlow } from '../src/connect-flows/domain/initFlow.js';
import { flowCall } from '../src/shared/handlers/flowRequest.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { signToken } from '../src/projects/domain/signToken.js';
import { verifyProjectToken } from '../src/projects/domain/verifyProjectToken.js';
import { CAPABLE_BROWSER, FakeCeremonies, FakeOneTimeCodes } from '../../../test/kit/fakeCeremonyAndChallenge.js';
import { startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
// One set of stores serves both families' flows here, as in server.ts.
let deps: AuthFlowDeps & ConnectFlowDeps;
let A: string;

beforeAll(async () => {
  env = await startTestEnv();
  deps = { ...env.deps, ceremony: new FakeCeremonies(), challenges: new FakeOneTimeCodes() };
  A = (await createProject(env.deps, { name: 'Process families', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
});
afterAll(() => env?.close());

const bare: FlowCall = { projectId: 'pro-0', requestId: 'req-family', clientAddress: '192.0.2.1', userAgent: 'Mozilla/5.0 (test)' };

/** The call the gateway makes of a verified process token: its `sub` and, when present, its `family` claim. */
async function callWith(token: string): Promise<FlowCall> {
  const claims = (await verifyProjectToken(deps, A, token, 'process'))!;
  const family = claims.family;
  return { ...bare, projectId: A, processId: String(claims.sub), ...(family === 'auth' || family === 'connect' ? { processFamily: family } : {}) };
}

const authToken = async () => (await initProcess(deps, { ...bare, projectId: A }, { client: CAPABLE_BROWSER, clientEnvHandle: undefined, preferredBlock: 'signup-init' })).token;
const connectToken = async () => (await initFlow(deps, { ...bare, projectId: A }, { flow: 'login', client: CAPABLE_BROWSER, clientEnvHandle: undefined, flags: {}, invitationToken: '' })).processToken;

/** A process token as the release before the claim signed it: kind and subject only. */
const legacyToken = (processId: string) => signToken(deps, A, { kind: 'process', sub: processId }, { expiresIn: 600 });

async function rejection(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return err;
}

describe('process tokens with the family claim', () => {
  it('are signed with the family of the flow that started them', async () => {
    expect(await callWith(await authToken())).toMatchObject({ processId: expect.stringMatching(/^apr-/), processFamily: 'auth' });
    expect(await callWith(await connectToken())).toMatchObject({ processFamily: 'connect' });
  });

  it('a connect token is refused by the sign-up/login steps (wrong_process)', async () => {
    const call = await callWith(await connectToken());
    expect(await rejection(recordProcessEvent(deps, call, { type: 'login-error' }))).toMatchObject({ kind: 'permission_denied', type: 'wrong_process' });
    expect(await rejection(loadAuthProcess(deps, call, ['signup-init']))).toMatchObject({ kind: 'permission_denied', type: 'wrong_process' });
    expect(await rejection(getVerificationStatus(deps, call))).toMatchObject({ kind: 'permission_denied', type: 'wrong_process' });
  });

  it('the claim decides, not the ID: an auth process ID under a connect claim is refused', async () => {
    const call = await callWith(await authToken());
    await recordProcessEvent(deps, call, { type: 'login-error' });
    const relabelled: FlowCall = { ...call, processFamily: 'connect' };
    expect(await rejection(recordProcessEvent(deps, relabelled, { type: 'login-error' }))).toMatchObject({ type: 'wrong_process' });
  });

  it('an auth token is refused by the connect steps (the process is not one of theirs)', async () => {
    const call = await callWith(await authToken());
    expect(await rejection(findActiveProcess(deps, call, 'any'))).toMatchObject({ kind: 'not_found', type: 'process_not_found' });
  });
});

describe('process tokens signed before the claim existed', () => {
  it('resolve by the process ID: an auth process continues, a connect one is refused', async () => {
    const auth = await callWith(await authToken());
    const oldAuth = await callWith(await legacyToken(auth.processId!));
    expect(oldAuth).not.toHaveProperty('processFamily');
    await recordProcessEvent(deps, oldAuth, { type: 'login-error' });
    expect((await loadAuthProcess(deps, oldAuth, ['signup-init']))._id).toBe(auth.processId);

    const connect = await callWith(await connectToken());
    const oldConnect = await callWith(await legacyToken(connect.processId!));
    expect(oldConnect).not.toHaveProperty('processFamily');
    expect(await rejection(recordProcessEvent(deps, oldConnect, { type: 'login-error' }))).toMatchObject({ type: 'wrong_process' });
    expect((await findActiveProcess(deps, oldConnect, 'login'))._id).toBe(connect.processId);
  });
});

describe('flowCall', () => {
  const method = AuthFlowService.methods[0];
  const ctx = (values: ReturnType<typeof createContextValues>) =>
    createHandlerContext({ service: AuthFlowService, method, protocolName: 'connect', requestMethod: 'POST', url: `/${method.name}`, contextValues: values });

  it("carries the family the gateway passed on with the token's process", () => {
    expect(flowCall(ctx(createContextValues().set(projectIdKey, 'pro-1').set(tokenProcessIdKey, 'apr-1').set(tokenProcessFamilyKey, 'connect')))).toMatchObject({ processId: 'apr-1', processFamily: 'connect' });
    expect(flowCall(ctx(createContextValues().set(projectIdKey, 'pro-1').set(tokenProcessIdKey, 'apr-1')))).not.toHaveProperty('processFamily');
    // A family without a process names nothing.
    expect(flowCall(ctx(createContextValues().set(projectIdKey, 'pro-1').set(tokenProcessFamilyKey, 'auth')))).not.toHaveProperty('processFamily');
  });
});
