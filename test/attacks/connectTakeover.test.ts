/**
 * #29 "Connect login as someone else": with only the project ID and the victim's address, an
 * attacker signs up through the self-service flows (/v2/auth) with the victim's address and the
 * attacker's own passkey, never proving the address, then tries the connect flows. Each attack is
 * performed over HTTP against the whole stack and fails the test if it works:
 *
 * - a connect login typed with the victim's address must not offer the attacker's passkey;
 * - a conditional-UI connect login with that passkey must not yield signedPasskeyData (or an
 *   operation) naming the victim's address, which the documented integration maps to the victim;
 * - the victim's later passkey enrollment through the application's own passkey-append connect
 *   token must land on a user of the application's, not on the attacker's.
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator, type SoftCredential } from '../kit/softAuthenticator.js';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';
const VICTIM = 'victim@bank.example';

let stack: Stack;
let project: ProjectJson;

beforeAll(async () => {
  stack = await startStack();
  // The project runs both families of flows, so this tests the connect rules themselves (a
  // connect-only project refuses the sign-up outright: selfServiceFlows.test.ts).
  project = await stack.createProject('attack-connect-takeover', [ORIGIN], ['--self-service', 'enabled']);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

type Rsp = { status: number; body: Record<string, any> };

async function front(path: string, body: unknown, processToken?: string): Promise<Rsp> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-corbado-projectid': project.projectID, origin: ORIGIN };
  if (processToken) headers['x-corbado-process-id'] = processToken;
  const res = await fetch(`${stack.frontendUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

async function back(path: string, body?: unknown, method = 'POST'): Promise<Rsp> {
  const res = await fetch(`${stack.backendUrl}${path}`, {
    method,
    headers: { authorization: basic(project), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const capable = {
  isUserVerifyingPlatformAuthenticatorAvailable: true,
  isConditionalMediationAvailable: true,
  clientCapabilities: { conditionalMediation: true, userVerifyingPlatformAuthenticator: true, conditionalGet: true, hybridTransport: true, passkeyPlatformAuthenticator: true },
};

/** The attacker's sign-up: the victim's address, the attacker's passkey, no code ever entered. */
async function attackerSignsUp(): Promise<{ credential: SoftCredential; userID: string }> {
  const init = await front('/v2/auth/process/init', { clientInformation: capable });
  expect(init.status).toBe(200);
  const token = init.body.token as string;
  const signup = await front('/v2/auth/signup/init', { identifiers: [{ type: 'email', identifier: VICTIM }], fullName: 'Not The Victim' }, token);
  expect(signup.body.blockBody?.block).toBe('passkey-append');
  const { json, credential } = new SoftAuthenticator().createFromOptions(signup.body.blockBody.data.challenge, ORIGIN);
  const appended = await front('/v2/auth/passkey/append/finish', { signedChallenge: JSON.stringify(json) }, token);
  expect(appended.body.blockBody?.block).toBe('passkey-appended');
  const done = await front('/v2/auth/process/complete', {}, token);
  expect(done.body.blockBody?.block).toBe('completed');
  const session = done.body.blockBody.data.shortSession as string;
  const userID = JSON.parse(Buffer.from(session.split('.')[1], 'base64url').toString('utf8')).sub as string;
  return { credential, userID };
}

async function connectInit(flow: 'login' | 'append'): Promise<Rsp> {
  const r = await front(`/v2/connect/${flow}/init`, { clientInformation: capable, flags: {} });
  expect(r.status).toBe(200);
  return r;
}

describe('connect flows trust only what the application vouched for or the user proved', () => {
  let attacker: { credential: SoftCredential; userID: string };

  beforeAll(async () => {
    attacker = await attackerSignsUp();
  });

  it("a typed connect login with the victim's address offers no passkey of the attacker's", async () => {
    const init = await connectInit('login');
    const start = await front('/v2/connect/login/start', { identifier: VICTIM, source: 'text-field', loadedMs: 100 }, init.body.token);
    expect(start.status).toBe(200);
    expect(start.body.assertionOptions).toBe('');
    expect(start.body.fallbackOperationError).toMatchObject({ initFallback: true });
  });

  it("a conditional-UI connect login with the attacker's passkey never names the victim's address", async () => {
    const init = await connectInit('login');
    const json = new SoftAuthenticator().getFromOptions(init.body.conditionalUIChallenge, attacker.credential, ORIGIN);
    const r = await front('/v2/connect/login/finish', { isConditionalUI: true, assertionResponse: JSON.stringify(json) }, init.body.token);
    // The passkey is the attacker's own: it may log the attacker into the attacker's account, but
    // nothing in the answer may say the account is the victim's.
    expect(r.status).toBe(200);
    const jwks = createLocalJWKSet((await (await fetch(`${stack.frontendUrl}/.well-known/jwks`, { headers: { 'x-corbado-projectid': project.projectID } })).json()) as JSONWebKeySet);
    const data = (await jwtVerify(r.body.signedPasskeyData, jwks, { issuer: project.frontendApiUrl, audience: project.projectID })).payload;
    expect(data.sub).toBe(attacker.userID);
    expect(data.username).not.toBe(VICTIM);
    expect(JSON.stringify(r.body)).not.toContain(VICTIM);
  });

  it("the victim's enrollment through the application's append token lands on the application's user, and the attacker loses the address", async () => {
    const token = await back('/v2/connectTokens', { type: 'passkey-append', data: { identifier: VICTIM, displayName: 'The Victim' } });
    expect(token.status).toBe(200);
    const init = await connectInit('append');
    // The append init names its process token processID (the login init: token), as web-core reads them.
    const processToken = init.body.processID as string;
    const start = await front('/v2/connect/append/start', { appendTokenValue: token.body.secret, loadedMs: 100 }, processToken);
    expect(start.status).toBe(200);
    const { json } = new SoftAuthenticator().createFromOptions(start.body.attestationOptions, ORIGIN);
    const finish = await front('/v2/connect/append/finish', { attestationResponse: JSON.stringify(json), completionType: 'manual' }, processToken);
    expect(finish.status).toBe(200);

    // The backend API names the owner of the address: not the attacker.
    const found = await back(`/v2/identifiers?filter[]=identifierValue:eq:${encodeURIComponent(VICTIM)}`, undefined, 'GET');
    expect(found.status).toBe(200);
    const owners = (found.body.identifiers as { userID: string; status: string }[]).map((i) => i.userID);
    expect(owners).toHaveLength(1);
    expect(owners[0]).not.toBe(attacker.userID);
    // The attacker's account holds only the attacker's own passkey: the victim's went elsewhere.
    const passkeys = await back(`/v2/users/${attacker.userID}/credentials`, undefined, 'GET');
    expect(passkeys.status).toBe(200);
    expect(passkeys.body.credentials).toHaveLength(1);
    expect(passkeys.body.credentials[0].id).not.toBe(finish.body.passkeyOperation?.credentialID);
  });
});
