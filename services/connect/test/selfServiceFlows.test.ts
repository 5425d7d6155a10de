/**
 * The self-service flows setting (issue #29, "which flows a project runs"): /v2/auth/* is served
 * only for projects that turned it on; otherwise every AuthFlowService call is refused with
 * permission_denied `self_service_disabled` before it writes anything. Tested on the service
 * implementation itself (the gate is the handlers' first step), with the domain and the CLI that
 * set it.
 */
import { create } from '@bufbuild/protobuf';
import { createContextValues, createHandlerContext, type HandlerContext } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthFlowService, ProcessInitRequestSchema, SignupInitRequestSchema } from '../../../gen/passkeyauth/connect/v1/auth_flow_service_pb.js';
import { DomainError } from '../../runtime/errors.js';
import { projectIdKey, tokenProcessIdKey } from '../../runtime/context.js';
import { authFlowServiceImpl } from '../src/auth-flows/handlers/authFlowService.js';
import { parseProjectCommand, UsageError, ensureProject } from '../src/cli/projectAdmin.js';
import { readProcessToken } from '../src/projects/domain/processTokens.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { listProjects } from '../src/projects/domain/listProjects.js';
import { checkSelfServiceFlows, requireSelfServiceFlows } from '../src/projects/domain/selfServiceFlows.js';
import { updateSelfServiceFlows } from '../src/projects/domain/updateProjectSettings.js';
import { FakeCeremonies, FakeOneTimeCodes } from '../../../test/kit/fakeCeremonyAndChallenge.js';
import { startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let impl: ReturnType<typeof authFlowServiceImpl>;
const base = { rpId: 'localhost', origins: ['http://localhost:3000'] };
/** The collections a flow call could write to. */
const WRITTEN = ['auth_processes', 'client_envs', 'users', 'identifiers', 'processes'];

beforeAll(async () => {
  env = await startTestEnv();
  impl = authFlowServiceImpl({ ...env.deps, ceremony: new FakeCeremonies(), challenges: new FakeOneTimeCodes() });
});
afterAll(() => env?.close());

/** A handler context as the gateway's headers make it: the project, and a process token's process when given. */
function ctxFor(method: (typeof AuthFlowService.methods)[number], projectId: string, processId?: string): HandlerContext {
  const values = createContextValues().set(projectIdKey, projectId);
  if (processId) values.set(tokenProcessIdKey, processId);
  return createHandlerContext({ service: AuthFlowService, method, protocolName: 'connect', requestMethod: 'POST', url: `/${method.name}`, contextValues: values });
}

const method = (name: string) => AuthFlowService.methods.find((m) => m.name === name)!;

/** Calls one RPC of the implementation with a request of its input type. */
function call(name: string, projectId: string, request: unknown, processId?: string): Promise<unknown> {
  const m = method(name);
  const fn = (impl as Record<string, (req: unknown, ctx: HandlerContext) => unknown>)[m.localName];
  return Promise.resolve().then(() => fn(request, ctxFor(m, projectId, processId)));
}

async function rejection(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return err;
}

async function counts(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const c of WRITTEN) out[c] = await env.store.db.collection(c).countDocuments({});
  return out;
}

const browser = { clientInformation: { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true, userAgent: 'Mozilla/5.0 (test)' }, preferredBlock: 'signup-init' };
const signupRequest = create(SignupInitRequestSchema, { identifiers: [{ type: 'email', identifier: 'victim@bank.example' }] });

describe('the setting', () => {
  it('is disabled unless the project is created with it on, and stored explicitly', async () => {
    const { project } = await createProject(env.deps, { name: 'Flows default', ...base });
    expect(project.selfServiceFlows).toBe('disabled');
    const on = await createProject(env.deps, { name: 'Flows on', ...base, selfServiceFlows: 'enabled' });
    expect(on.project.selfServiceFlows).toBe('enabled');
    await expect(createProject(env.deps, { name: 'Flows bad', ...base, selfServiceFlows: 'yes' })).rejects.toMatchObject({ kind: 'invalid_argument', type: 'validation_error' });
    expect(() => checkSelfServiceFlows('on')).toThrow(DomainError);
  });

  it('fails closed for a record stored before the setting existed', () => {
    expect(() => requireSelfServiceFlows({ _id: 'pro-1' })).toThrow(expect.objectContaining({ kind: 'permission_denied', type: 'self_service_disabled' }));
    expect(() => requireSelfServiceFlows({ _id: 'pro-1', selfServiceFlows: 'disabled' })).toThrow(DomainError);
    expect(() => requireSelfServiceFlows({ _id: 'pro-1', selfServiceFlows: 'enabled' })).not.toThrow();
  });

  it('is changed (and shown) by updateSelfServiceFlows; an unknown project is not_found', async () => {
    const { project } = await createProject(env.deps, { name: 'Flows toggle', ...base });
    expect((await updateSelfServiceFlows(env.deps, project._id, 'enabled')).selfServiceFlows).toBe('enabled');
    expect((await updateSelfServiceFlows(env.deps, project._id, undefined)).selfServiceFlows).toBe('enabled');
    expect((await updateSelfServiceFlows(env.deps, project._id, 'disabled')).selfServiceFlows).toBe('disabled');
    await expect(updateSelfServiceFlows(env.deps, 'pro-424242', 'enabled')).rejects.toMatchObject({ type: 'project_not_found' });
    await expect(updateSelfServiceFlows(env.deps, project._id, 'maybe')).rejects.toMatchObject({ type: 'validation_error' });
  });

  it('create --self-service and self-service-settings (CLI) set and print it; list shows it', async () => {
    const created = (await parseProjectCommand(['create', '--name', 'Flows CLI', '--rp-id', 'localhost', '--origin', 'http://localhost:3000', '--self-service', 'enabled']).run(env.deps)) as { projectID: string };
    expect(await parseProjectCommand(['self-service-settings', '--project', created.projectID]).run(env.deps)).toEqual({ projectID: created.projectID, selfServiceFlows: 'enabled' });
    expect(await parseProjectCommand(['self-service-settings', '--project', created.projectID, '--self-service', 'disabled']).run(env.deps)).toEqual({ projectID: created.projectID, selfServiceFlows: 'disabled' });
    expect((await listProjects(env.deps)).find((p) => p.projectID === created.projectID)?.selfServiceFlows).toBe('disabled');
    expect(() => parseProjectCommand(['self-service-settings', '--project', created.projectID, '--self-service', 'on'])).toThrow(UsageError);
    expect(() => parseProjectCommand(['create', '--name', 'x', '--rp-id', 'localhost', '--origin', 'http://localhost:3000', '--self-service', 'on'])).toThrow(UsageError);
  });

  it('ensureProject applies the setting to an existing project when the input names one', async () => {
    const first = await ensureProject({ name: 'Flows ensured', ...base }, env.deps);
    expect((await updateSelfServiceFlows(env.deps, first.projectID, undefined)).selfServiceFlows).toBe('disabled');
    const again = await ensureProject({ name: 'Flows ensured', ...base, selfServiceFlows: 'enabled' }, env.deps);
    expect(again.projectID).toBe(first.projectID);
    expect((await updateSelfServiceFlows(env.deps, first.projectID, undefined)).selfServiceFlows).toBe('enabled');
  });
});

describe('the gate of /v2/auth/*', () => {
  it('refuses every AuthFlowService call on a project without self-service, writing nothing; process-config still answers', async () => {
    const { project } = await createProject(env.deps, { name: 'Connect only', ...base });
    const before = await counts();
    const gated = AuthFlowService.methods.filter((m) => m.name !== 'GetProcessConfig');
    // Every /v2/auth/* RPC: a service method added later without the gate fails this test.
    expect(gated.length).toBe(AuthFlowService.methods.length - 1);
    for (const m of gated) {
      for (const processId of [undefined, 'prc-1']) {
        const err = await rejection(call(m.name, project._id, create(m.input), processId));
        expect({ rpc: m.name, kind: err.kind, type: err.type }).toEqual({ rpc: m.name, kind: 'permission_denied', type: 'self_service_disabled' });
      }
    }
    expect(await counts()).toEqual(before);
    // /v2/process-config is configuration only (no flow, no state), for every project.
    await expect(call('GetProcessConfig', project._id, create(method('GetProcessConfig').input))).resolves.toMatchObject({ frontendApiUrl: project.frontendApiUrl });
  });

  it('serves the flows on a project with self-service on, and stops a running process when it is turned off', async () => {
    const { project } = await createProject(env.deps, { name: 'Self-service', ...base, selfServiceFlows: 'enabled' });
    const init = (await call('ProcessInit', project._id, create(ProcessInitRequestSchema, browser))) as { token: string };
    const processId = (await readProcessToken(env.deps, project._id, init.token))!;
    expect(processId).toBeTruthy();

    await updateSelfServiceFlows(env.deps, project._id, 'disabled');
    const before = await counts();
    const err = await rejection(call('SignupInit', project._id, signupRequest, processId));
    expect(err).toMatchObject({ kind: 'permission_denied', type: 'self_service_disabled' });
    expect(await counts()).toEqual(before);
    expect(await env.store.db.collection('identifiers').countDocuments({ projectId: project._id })).toBe(0);

    await updateSelfServiceFlows(env.deps, project._id, 'enabled');
    const answer = (await call('SignupInit', project._id, signupRequest, processId)) as { processResponse: { blockBody: { block: string } } };
    expect(answer.processResponse.blockBody.block).not.toBe('signup-init');
    expect(await env.store.db.collection('identifiers').countDocuments({ projectId: project._id })).toBe(1);
  });
});
