/**
 * Frontend authentication end to end: tokens signed by the real connect service's project keys,
 * verified by the real gateway against the published JWKS; CORS; health of every process.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProjectAdmin, type ProjectAdmin } from '../../services/connect/src/cli/projectAdmin.js';
import { signToken } from '../../services/connect/src/projects/domain/signToken.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';
import { startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

let stack: Stack;
let project: ProjectJson;
let other: ProjectJson;
let admin: ProjectAdmin;

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('frontend-auth-e2e', ['http://localhost:3000'], ['--self-service', 'enabled']);
  other = await stack.createProject('frontend-auth-e2e-other', ['https://other.example']);
  admin = await openProjectAdmin({
    mongodbUri: stack.env.MONGODB_URI,
    masterKey: parseMasterKey(stack.env.MASTER_KEY),
    urls: { frontendApiUrl: stack.env.FRONTEND_API_URL, backendApiUrl: stack.env.BACKEND_API_URL },
  });
}, 120_000);
afterAll(async () => {
  await admin?.close();
  await stack?.stop();
});

const sessionConfig = (headers: Record<string, string>) =>
  fetch(`${stack.frontendUrl}/v2/session-config`, { headers }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as Record<string, any> }));

describe('bearer authentication through the gateway', () => {
  it('accepts the client key printed by the CLI', async () => {
    const r = await sessionConfig({ authorization: `Bearer ${project.clientKey}` });
    expect(r.status).toBe(200);
    // The session token's cookie under both names (web-core 2.x and 3.x): host-only (no domain), and
    // not Secure only because every origin of this project is http on loopback (http://localhost:3000).
    const cookie = { domain: '', secure: false, sameSite: 'lax', path: '/', lifetimeSeconds: 900 };
    expect(r.body).toEqual({ useSessionManagement: true, frontendApiUrl: project.frontendApiUrl, shortSessionCookieConfig: cookie, sessionTokenCookieConfig: cookie });
  });

  it('describes a Secure cookie when every origin of the project is https', async () => {
    const r = await sessionConfig({ 'x-corbado-projectid': other.projectID });
    expect(r.status).toBe(200);
    expect(r.body.sessionTokenCookieConfig).toEqual({ domain: '', secure: true, sameSite: 'lax', path: '/', lifetimeSeconds: 900 });
  });

  it('accepts X-Corbado-ProjectID in place of a client key', async () => {
    expect((await sessionConfig({ 'x-corbado-projectid': project.projectID })).status).toBe(200);
  });

  it('refuses a missing token with 401 and WWW-Authenticate', async () => {
    const r = await sessionConfig({});
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(r.body.error.type).toBe('missing_credentials');
  });

  it('refuses an unknown project in X-Corbado-ProjectID', async () => {
    expect((await sessionConfig({ 'x-corbado-projectid': 'pro-1' })).status).toBe(401);
  });

  it('refuses a tampered token', async () => {
    const [h, p, s] = project.clientKey.split('.');
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, sub: 'pro-999' })).toString('base64url');
    const r = await sessionConfig({ authorization: `Bearer ${h}.${forged}.${s}` });
    expect(r.status).toBe(401);
    expect(r.body.error.type).toBe('invalid_token');
  });

  it('refuses an expired token', async () => {
    const past = Math.floor(Date.now() / 1000) - 60;
    const token = await signToken(admin.deps, project.projectID, { kind: 'client', sub: project.projectID, exp: past });
    const r = await sessionConfig({ authorization: `Bearer ${token}` });
    expect(r.status).toBe(401);
    expect(r.body.error.type).toBe('token_expired');
  });

  it('refuses a token of the wrong kind', async () => {
    const token = await signToken(admin.deps, project.projectID, { kind: 'session', sub: 'usr-1' }, { expiresIn: 300 });
    const r = await sessionConfig({ authorization: `Bearer ${token}` });
    expect(r.status).toBe(401);
    expect(r.body.error.type).toBe('wrong_token_kind');
  });

  it("refuses another project's token for this project's host", async () => {
    // fetch() does not let a caller set Host, so this request goes through node:http.
    const r = await new Promise<{ status: number; body: Record<string, any> }>((resolve, reject) => {
      const req = request(`${stack.frontendUrl}/v2/session-config`, {
        headers: { authorization: `Bearer ${other.clientKey}`, host: `${project.projectID}.localhost` },
      }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(r.status).toBe(401);
    expect(r.body.error.type).toBe('project_mismatch');
  });

  it('serves the JWKS that verifies the tokens at both well-known paths', async () => {
    for (const path of ['/.well-known/jwks', '/.well-known/jwks.json']) {
      const r = await fetch(`${stack.frontendUrl}${path}`, { headers: { 'x-corbado-projectid': project.projectID } });
      expect(r.status).toBe(200);
      const jwks = (await r.json()) as { keys: { kid: string; alg: string; kty: string }[] };
      const kid = JSON.parse(Buffer.from(project.clientKey.split('.')[0], 'base64url').toString()).kid;
      expect(jwks.keys.map((k) => k.kid)).toContain(kid);
      expect(jwks.keys.every((k) => k.alg === 'ES256' && k.kty === 'EC' && !('d' in k))).toBe(true);
    }
  });
});

describe('CORS on the frontend listener', () => {
  it('grants a preflight from an allowed origin, with credentials', async () => {
    const r = await fetch(`${stack.frontendUrl}/v2/session-config`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-corbado-projectid' },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
    expect(r.headers.get('access-control-allow-headers')).toContain('x-corbado-projectid');
  });

  it('refuses a preflight from any other origin', async () => {
    const r = await fetch(`${stack.frontendUrl}/v2/session-config`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(r.status).toBe(403);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("grants the real request only for the token's own project origins", async () => {
    const own = await fetch(`${stack.frontendUrl}/v2/session-config`, { headers: { 'x-corbado-projectid': project.projectID, origin: 'http://localhost:3000' } });
    expect(own.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    const foreign = await fetch(`${stack.frontendUrl}/v2/session-config`, { headers: { 'x-corbado-projectid': project.projectID, origin: 'https://other.example' } });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('every process is healthy', () => {
  it('answers /healthz, /readyz and /metrics', async () => {
    const bases = [stack.ports.ceremony, stack.ports.challenge, stack.ports.connect, stack.ports.frontend, stack.ports.backend].map((p) => `http://127.0.0.1:${p}`);
    for (const base of bases) {
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toContain('process_cpu_user_seconds_total');
    }
    const challengeMetrics = await (await fetch(`http://127.0.0.1:${stack.ports.challenge}/metrics`)).text();
    expect(challengeMetrics).toContain('rpc_server_duration_seconds');
  });
});

describe('GET /v2/process-config (web-core 3.x reads it before it has a process)', () => {
  const processConfig = (headers: Record<string, string>) =>
    fetch(`${stack.frontendUrl}/v2/process-config`, { headers }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as Record<string, any> }));

  it('answers the project named by X-Corbado-ProjectID (what the SDK sends) with its frontend API URL', async () => {
    const r = await processConfig({ 'x-corbado-projectid': project.projectID, origin: 'http://localhost:3000' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ useServerSideProcessId: false, frontendApiUrl: project.frontendApiUrl });
    expect(r.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    const other_ = await processConfig({ authorization: `Bearer ${other.clientKey}` });
    expect(other_.body).toEqual({ useServerSideProcessId: false, frontendApiUrl: other.frontendApiUrl });
  });

  it('grants the preflight the SDK sends from an allowed origin, and no other', async () => {
    const ok = await fetch(`${stack.frontendUrl}/v2/process-config`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'GET', 'access-control-request-headers': 'content-type,x-corbado-client-timezone,x-corbado-flags,x-corbado-projectid,x-corbado-sdk' },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect(ok.headers.get('access-control-allow-headers')).toContain('x-corbado-projectid');
    const evil = await fetch(`${stack.frontendUrl}/v2/process-config`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } });
    expect(evil.status).toBe(403);
  });

  it('needs a project: none is 401, an unknown one 401, a process or session token the wrong kind', async () => {
    expect((await processConfig({})).status).toBe(401);
    const unknown = await processConfig({ 'x-corbado-projectid': 'pro-1' });
    expect({ status: unknown.status, type: unknown.body.error?.type }).toEqual({ status: 401, type: 'invalid_project' });
    const init = await fetch(`${stack.frontendUrl}/v2/auth/process/init`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-corbado-projectid': project.projectID },
      body: JSON.stringify({ clientInformation: { isUserVerifyingPlatformAuthenticatorAvailable: false, isConditionalMediationAvailable: false } }),
    }).then((r) => r.json() as Promise<{ token: string }>);
    const wrong = await processConfig({ authorization: `Bearer ${init.token}` });
    expect({ status: wrong.status, type: wrong.body.error?.type }).toEqual({ status: 401, type: 'wrong_token_kind' });
  });
});
