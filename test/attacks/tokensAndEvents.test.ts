/**
 * Issue #29 items 5 and 10, attacked over HTTP against the whole stack:
 *
 * - "Unproven values in session tokens": an attacker signs up with a victim's address and only a
 *   passkey, and holds a project-signed session token. It must not state the address as the
 *   user's email (nor as `orig` or `name`); it lists it with status `pending`.
 * - "Events stored without bound": an anonymous process token posts the largest events the
 *   gateway lets through, again and again. The process stores a bounded digest, and the next steps
 *   neither carry nor slow down with them.
 * - "A cookie for every subdomain, without Secure": the session config's cookie is host-only and
 *   Secure for a project with an https origin, also when an http://localhost origin sits beside it.
 */
import { calculateObjectSize } from 'bson';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SoftAuthenticator } from '../kit/softAuthenticator.js';
import { startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';
const capable = { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true, clientCapabilities: { conditionalMediation: true, userVerifyingPlatformAuthenticator: true } };

let stack: Stack;
let project: ProjectJson;

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('attacks-tokens-events', [ORIGIN], ['--self-service', 'enabled']);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

type Rsp = { status: number; body: Record<string, any>; ms: number };

async function front(path: string, body: unknown, o: { process?: string; bearer?: string; method?: string; projectId?: string } = {}): Promise<Rsp> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-corbado-projectid': o.projectId ?? project.projectID, origin: ORIGIN };
  if (o.process) headers['x-corbado-process-id'] = o.process;
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  const started = performance.now();
  const res = await fetch(`${stack.frontendUrl}${path}`, { method: o.method ?? 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {}, ms: performance.now() - started };
}

async function processInit(): Promise<string> {
  const r = await front('/v2/auth/process/init', { clientInformation: capable });
  expect(r.status).toBe(200);
  return r.body.token as string;
}

async function verifySession(token: string) {
  const r = await fetch(`${stack.frontendUrl}/.well-known/jwks`, { headers: { 'x-corbado-projectid': project.projectID } });
  const keys = createLocalJWKSet((await r.json()) as JSONWebKeySet);
  return (await jwtVerify(token, keys, { issuer: project.frontendApiUrl, audience: project.projectID })).payload;
}

describe('a self sign-up with an address it never proved', () => {
  it('gets a session token that does not state the address as a fact, also after a refresh', async () => {
    const victim = 'ceo@victim-corp.example';
    const token = await processInit();
    const signup = await front('/v2/auth/signup/init', { identifiers: [{ type: 'email', identifier: victim }] }, { process: token });
    expect(signup.body.blockBody?.block).toBe('passkey-append');
    // Only the attacker's own passkey: nothing proves the address.
    const { json } = new SoftAuthenticator().createFromOptions(signup.body.blockBody.data.challenge, ORIGIN);
    expect((await front('/v2/auth/passkey/append/finish', { signedChallenge: JSON.stringify(json) }, { process: token })).status).toBe(200);
    const done = await front('/v2/auth/process/complete', {}, { process: token });
    expect(done.body.blockBody?.block).toBe('completed');

    const fresh = done.body.blockBody.data.refreshToken as string;
    const refreshed = await front('/v2/me/refresh', {}, { bearer: fresh });
    expect(refreshed.status).toBe(200);
    for (const sessionToken of [done.body.blockBody.data.sessionToken as string, refreshed.body.sessionToken as string]) {
      const claims = await verifySession(sessionToken);
      // The attack succeeded if the signed token says the victim's address is this user's.
      expect(claims).not.toHaveProperty('email');
      expect(claims.email_verified).toBe(false);
      expect(claims.orig).toBe('');
      expect(claims.name).not.toBe(victim);
      expect(claims.identifiers).toEqual([{ type: 'email', value: victim, status: 'pending' }]);
    }
  });
});

describe('events an anonymous process posts', () => {
  it('store a bounded digest, and later steps neither carry nor wait for them', async () => {
    // A reference: the same step on a process without events.
    const quiet = await processInit();
    const reference = await front('/v2/auth/signup/init', { identifiers: [{ type: 'email', identifier: 'quiet@example.com' }] }, { process: quiet });
    expect(reference.status).toBe(200);

    const token = await processInit();
    const processes = stack.db.collection<{ _id: string; events?: unknown[] }>('auth_processes');
    const [emptyDoc] = await processes.find({ projectId: project.projectID }).sort({ createdAt: -1 }).limit(1).toArray();
    const emptySize = calculateObjectSize(emptyDoc!);
    // The longest challenge the contract allows (65,536 characters) on the longest event type, 30 times.
    const challenge = 'A'.repeat(65_536);
    for (let i = 0; i < 30; i++) {
      const r = await front('/v2/auth/events', { eventType: 'user-append-after-cross-platform-blacklisted', challenge }, { process: token });
      expect(r.status, JSON.stringify(r.body)).toBe(204);
    }
    const stored = (await processes.findOne({ _id: emptyDoc!._id }))!;
    const added = calculateObjectSize(stored) - emptySize;
    // Before the bound this was 1,312,563 bytes; now 20 digests of about 160 bytes each.
    expect(added).toBeLessThan(4_096);
    expect(stored.events).toHaveLength(20);
    expect(JSON.stringify(stored)).not.toContain('AAAAAAAAAAAAAAAA');

    // The next step answers as on a process without events, and in comparable time.
    const step = await front('/v2/auth/signup/init', { identifiers: [{ type: 'email', identifier: 'noisy@example.com' }] }, { process: token });
    expect(step.status).toBe(200);
    expect(step.body.blockBody.block).toBe(reference.body.blockBody.block);
    expect(JSON.stringify(step.body).length).toBeLessThan(JSON.stringify(reference.body).length + 200);
    expect(step.ms).toBeLessThan(Math.max(1_000, reference.ms * 10));
  });
});

describe('the session cookie the web SDK sets (GET /v2/session-config)', () => {
  const cookieOf = async (projectId: string) => (await front('/v2/session-config', undefined, { method: 'GET', projectId })).body.sessionTokenCookieConfig as Record<string, unknown>;

  it('is host-only and Secure for an https project, and Secure beside an http://localhost origin too', async () => {
    const https = await stack.createProject('attacks-cookie-https', ['https://app.localhost']);
    const mixed = await stack.createProject('attacks-cookie-mixed', ['https://app.localhost', 'http://localhost:3000']);
    expect(await cookieOf(https.projectID)).toEqual({ domain: '', secure: true, sameSite: 'lax', path: '/', lifetimeSeconds: 900 });
    // Before: the RP ID as the domain (every subdomain got the token) and no Secure as soon as one origin was http.
    expect(await cookieOf(mixed.projectID)).toMatchObject({ domain: '', secure: true });
    // Only an all-http-loopback development project gets a cookie without Secure; still host-only.
    expect(await cookieOf(project.projectID)).toMatchObject({ domain: '', secure: false });
  });
});
