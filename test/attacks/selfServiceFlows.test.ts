/**
 * Attack (issue #29, "Connect login as someone else", step one): on a project whose application
 * signs users in through the connect flows, an attacker holding only the project ID signs up with
 * the victim's email address and their own passkey through the self-service flows (/v2/auth/*),
 * which prove nothing about the address. A project serves those flows only when its operator
 * turned them on (`project create --self-service enabled`, `self-service-settings`), so here the
 * sign-up is refused and nothing is written; on a self-service project it still works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../kit/softAuthenticator.js';
import { startStack, type ProjectJson, type Stack } from '../kit/startStack.js';
import { openProjectAdmin } from '../../services/connect/src/cli/projectAdmin.js';
import { updateSelfServiceFlows } from '../../services/connect/src/projects/domain/updateProjectSettings.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';

const ORIGIN = 'http://localhost:3000';
const VICTIM = 'victim@bank.example';
const capable = { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true, clientCapabilities: { conditionalMediation: true, userVerifyingPlatformAuthenticator: true } };

let stack: Stack;
/** The application's connect project: created without --self-service, as connect projects are. */
let connectOnly: ProjectJson;
/** A project that serves the passkey-first sign-up (e.g. the web-js auth UI). */
let selfService: ProjectJson;

beforeAll(async () => {
  stack = await startStack();
  connectOnly = await stack.createProject('attack-connect-only', [ORIGIN]);
  selfService = await stack.createProject('attack-self-service', [ORIGIN], ['--self-service', 'enabled']);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

interface Rsp {
  status: number;
  body: Record<string, any>;
}

async function front(project: ProjectJson, path: string, body: unknown, o: { process?: string; bearer?: string; method?: string } = {}): Promise<Rsp> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-corbado-projectid': project.projectID, origin: ORIGIN };
  if (o.process) headers['x-corbado-process-id'] = o.process;
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  const res = await fetch(`${stack.frontendUrl}${path}`, { method: o.method ?? 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

/** What the flows could have written for a project: users, identifiers, auth processes. */
async function written(project: ProjectJson) {
  const projectId = project.projectID;
  return {
    users: await stack.db.collection('users').countDocuments({ projectId }),
    identifiers: await stack.db.collection('identifiers').countDocuments({ projectId }),
    victimIdentifiers: await stack.db.collection('identifiers').countDocuments({ projectId, value: VICTIM }),
    authProcesses: await stack.db.collection('auth_processes').countDocuments({ projectId }),
  };
}

function expectRefused(r: Rsp, what: string) {
  expect({ what, status: r.status, type: r.body.error?.type }).toEqual({ what, status: 403, type: 'self_service_disabled' });
  expect(r.body.error.details ?? r.body.message).toMatch(/self-service/);
}

/** The whole passkey-first sign-up: process/init, signup/init with the address, a passkey, complete. */
async function signUp(project: ProjectJson, email: string): Promise<{ init: Rsp; signup?: Rsp; done?: Rsp }> {
  const init = await front(project, '/v2/auth/process/init', { clientInformation: capable });
  if (init.status !== 200) return { init };
  const signup = await front(project, '/v2/auth/signup/init', { identifiers: [{ type: 'email', identifier: email }], fullName: 'Mallory' }, { process: init.body.token });
  if (signup.status !== 200) return { init, signup };
  const { json } = new SoftAuthenticator().createFromOptions(signup.body.blockBody.data.challenge, ORIGIN);
  await front(project, '/v2/auth/passkey/append/finish', { signedChallenge: JSON.stringify(json) }, { process: init.body.token });
  const done = await front(project, '/v2/auth/process/complete', {}, { process: init.body.token });
  return { init, signup, done };
}

describe('self-service sign-up on a connect-only project', () => {
  it("is refused with 403 self_service_disabled at every entry, and writes no user or identifier for the victim's address", async () => {
    const before = await written(connectOnly);
    const attempt = await signUp(connectOnly, VICTIM);
    expectRefused(attempt.init, 'process/init');
    expect(attempt.signup, 'no process token was handed out').toBeUndefined();
    // The other ways in without a process token: the client key as the bearer, the login entry
    // (which starts a process of its own).
    expectRefused(await front(connectOnly, '/v2/auth/process/init', { clientInformation: capable }, { bearer: connectOnly.clientKey }), 'process/init with the client key');
    expectRefused(await front(connectOnly, '/v2/auth/login/init', { identifierValue: VICTIM, isPhone: false }), 'login/init');
    expect(await written(connectOnly)).toEqual({ ...before, victimIdentifiers: 0 });
  });

  it("refuses a process token of the attacker's own self-service project presented for the connect project", async () => {
    const init = await front(selfService, '/v2/auth/process/init', { clientInformation: capable });
    expect(init.status).toBe(200);
    const r = await front(connectOnly, '/v2/auth/signup/init', { identifiers: [{ type: 'email', identifier: VICTIM }] }, { process: init.body.token });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(await written(connectOnly)).toMatchObject({ victimIdentifiers: 0 });
  });

  it('stops a process started while the flows were on once the operator turns them off', async () => {
    const admin = await openProjectAdmin({ mongodbUri: stack.env.MONGODB_URI, masterKey: parseMasterKey(stack.env.MASTER_KEY), urls: { frontendApiUrl: stack.env.FRONTEND_API_URL, backendApiUrl: stack.env.BACKEND_API_URL } });
    const toggled = await stack.createProject('attack-toggled', [ORIGIN], ['--self-service', 'enabled']);
    try {
      const init = await front(toggled, '/v2/auth/process/init', { clientInformation: capable });
      expect(init.status).toBe(200);
      await updateSelfServiceFlows(admin.deps, toggled.projectID, 'disabled');
      const process = init.body.token as string;
      expectRefused(await front(toggled, '/v2/auth/signup/init', { identifiers: [{ type: 'email', identifier: VICTIM }] }, { process }), 'signup/init with a live process token');
      expectRefused(await front(toggled, '/v2/auth/process', undefined, { process, method: 'GET' }), 'GET process');
      expectRefused(await front(toggled, '/v2/auth/process/reset', {}, { process }), 'process/reset');
      expectRefused(await front(toggled, '/v2/auth/events', { eventType: 'login-error' }, { process }), 'events');
      expect(await written(toggled)).toMatchObject({ users: 0, identifiers: 0 });
    } finally {
      await admin.close();
    }
  });

  it('leaves the connect flows of the project working', async () => {
    const r = await front(connectOnly, '/v2/connect/login/init', { clientInformation: capable, flags: {} });
    expect(r.status).toBe(200);
    expect(r.body.token).toEqual(expect.any(String));
  });
});

describe('self-service sign-up on a project that turned it on', () => {
  it('works end to end and stores the identifier', async () => {
    const { init, signup, done } = await signUp(selfService, 'someone@example.com');
    expect(init.status).toBe(200);
    expect(signup?.body.blockBody.block).toBe('passkey-append');
    expect(done?.body.blockBody.block).toBe('completed');
    expect(await stack.db.collection('identifiers').countDocuments({ projectId: selfService.projectID, value: 'someone@example.com' })).toBe(1);
  });
});
