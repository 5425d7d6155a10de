/** The ceremony service over real HTTP on port 0 (createServer), and failures the caller must not see. */
import { Code, createClient, createRouterTransport } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CeremonyService } from '../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { createMetrics } from '../../runtime/metrics.js';
import { serviceInterceptors } from '../../runtime/server.js';
import { ceremonyRoutes, createServer } from '../src/server.js';
import { login, registered } from './flows.js';
import { as, failure, silent, startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let server: Server;
let base: string;

beforeAll(async () => {
  env = await startTestEnv();
  server = createServer({ ...env.deps, logger: silent, metrics: createMetrics('ceremony-http-test'), ready: () => env.store.ping() });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await env?.close();
});

describe('over HTTP', () => {
  it('appends a passkey, logs in with it and lists it', async () => {
    const client = createClient(CeremonyService, createConnectTransport({ baseUrl: base, httpVersion: '1.1', useBinaryFormat: true }));
    const reg = await registered(client);
    const r = await (await login(client, reg.auth, reg.credential, { signPasskeyData: true })).finish;
    expect(r.passkeyData!.id).toBe(reg.finished.passkeyData!.id);
    expect(r.signedPasskeyData!.split('.')).toHaveLength(3);
    expect((await client.listCredentials({ userId: 'usr-1' }, as('pro-1'))).credentials).toHaveLength(1);
  });

  it('answers JSON requests with the interface field names, and malformed responses with 400 ErrorInfo', async () => {
    const res = await fetch(`${base}/passkeyauth.ceremony.v1.CeremonyService/FinishLogin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-passkeyauth-project-id': 'pro-1' },
      body: JSON.stringify({
        userID: 'usr-1',
        processID: 'p',
        assertionResponse: '{"id": 1}',
        clientInformation: { remoteAddress: '1.2.3.4', userAgent: 'x', userVerifyingPlatformAuthenticatorAvailable: true, conditionalMediationAvailable: false },
      }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('invalid_argument');
    expect(body.message).toContain('assertionResponse: id must be a string');
  });

  it('serves /healthz and /readyz beside the RPCs', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });
});

describe('failures the caller must not see', () => {
  it('a lost audit event does not undo a stored passkey', async () => {
    const insights = Object.create(env.insights) as typeof env.insights;
    insights.recordEvent = async (event) => {
      if (event.type === 'append-succeeded') throw new Error('event store down');
    };
    const client = createClient(
      CeremonyService,
      createRouterTransport(ceremonyRoutes({ ...env.deps, insights }), { router: { interceptors: serviceInterceptors({ logger: silent, metrics: createMetrics('t') }) } }),
    );
    const reg = await registered(client);
    expect(reg.finished.passkeyData!.id).toMatch(/^cre-/);
  });

  it('an unreachable connect service is Unavailable, without internals', async () => {
    const down = createRouterTransport(() => undefined);
    const { rpcProjectDirectory } = await import('../src/clients/connectDirectory.js');
    const { ProjectService } = await import('../../../gen/passkeyauth/connect/v1/project_service_pb.js');
    const client = createClient(
      CeremonyService,
      createRouterTransport(ceremonyRoutes({ ...env.deps, projects: rpcProjectDirectory(createClient(ProjectService, down)) }), {
        router: { interceptors: serviceInterceptors({ logger: silent, metrics: createMetrics('t2') }) },
      }),
    );
    const f = await failure(client.startMediation({ clientInformation: { remoteAddress: '1.2.3.4', userAgent: 'x', userVerifyingPlatformAuthenticatorAvailable: true, conditionalMediationAvailable: true } }, as('pro-1')));
    expect(f.code).toBe(Code.Unavailable);
    expect(f.type).toBe('dependency_unavailable');
    expect(f.error.rawMessage).toBe('the project directory is not reachable');
  });
});
