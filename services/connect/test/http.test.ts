import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { listen } from '../../runtime/lifecycle.js';
import { createProject, type CreatedProject } from '../src/projects/domain/createProject.js';
import { createServer } from '../src/server.js';
import { as, logger, metrics, startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let server: Server;
let baseUrl: string;
let project: CreatedProject;

beforeAll(async () => {
  env = await startTestEnv();
  server = createServer({ ...env.deps, logger, metrics, ready: () => env.store.ping() });
  baseUrl = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  project = await createProject(env.deps, { name: 'Over HTTP', rpId: 'localhost', origins: ['http://localhost:3000'] });
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await env?.close();
});

describe('connect service over HTTP', () => {
  it('serves both services with the binary Connect protocol, as other services call it', async () => {
    const transport = createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: true });
    const projects = createClient(ProjectService, transport);
    const users = createClient(UserService, transport);
    expect((await projects.authenticateBackend({ projectId: project.project._id, apiSecret: project.apiSecret })).projectId).toBe(project.project._id);
    const { user } = await users.createUser({ fullName: 'Via HTTP', status: 'active' }, as(project.project._id));
    const { identifier } = await users.createIdentifier({ userId: user!.userId, identifierType: 'email', identifierValue: 'http@example.com', status: 'primary' }, as(project.project._id));
    const list = await users.listIdentifiers({ filter: [`userID:eq:${user!.userId.slice(4)}`], sort: '' }, as(project.project._id));
    expect(list.identifiers).toEqual([identifier]);
    expect(list.paging).toMatchObject({ page: 1, totalPages: 1, totalItems: 1 });
  });

  it('answers health, readiness and metrics', async () => {
    expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${baseUrl}/readyz`)).json()).toEqual({ status: 'ready' });
    expect(await (await fetch(`${baseUrl}/metrics`)).text()).toContain('rpc_server_duration_seconds');
  });

  it('maps a domain error to its Connect code over the wire', async () => {
    const res = await fetch(`${baseUrl}/passkeyauth.connect.v1.ProjectService/AuthenticateBackend`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ projectID: project.project._id, apiSecret: 'corbado1_wrong' }),
    });
    expect(res.status).toBe(401);
    const body = (await res.json()) as { code: string; message: string };
    expect(body).toMatchObject({ code: 'unauthenticated', message: 'the project ID or API secret is not valid' });
    expect(JSON.stringify(body)).not.toContain(project.apiSecret);
  });
});
