/**
 * Issue #29, items 3, 4 and 6, attacked over HTTP against the whole stack with nothing but the
 * project's ID and a victim's address (codes are read from a real SMTP server, passkeys made by the
 * software authenticator). Each case fails if the attack works:
 *
 * (a) pre-hijacking: an attacker signs up with the victim's address and its own passkey, never
 *     proving the address. It must not block the victim's sign-up, must not log anyone into the
 *     attacker's account by the address, and loses the address once the victim proves it.
 * (b) "verified" written to the wrong address: a code sent to the attacker's own address, then
 *     the identifier changed to the victim's (PATCH /v2/me/identifier, POST
 *     /v2/auth/identifier/update), then the code entered: the victim's address is never verified
 *     or claimed, also when the change and the finish race.
 * (c) application users are never released: a user the backend API created, with its
 *     identifiers, survives sign-ups and identifier adds of its address by others, also long after
 *     any sign-up process would have expired.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSmtp, toOf } from '../../services/challenge/test/testSmtp.js';
import { SoftAuthenticator } from '../kit/softAuthenticator.js';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';
const VICTIM = 'victim@bank.example';

let stack: Stack;
let project: ProjectJson;
const smtp = new TestSmtp();

beforeAll(async () => {
  await smtp.start();
  stack = await startStack({ smtpUrl: smtp.url, emailFrom: 'Identifier Claims <no-reply@localhost>' });
  project = await stack.createProject('identifier-claims-attacks', [ORIGIN], ['--challenge-delivery', 'service', '--self-service', 'enabled']);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await smtp.stop();
});

type Rsp = { status: number; body: Record<string, any> };

async function front(method: string, path: string, o: { process?: string; bearer?: string; body?: unknown } = {}): Promise<Rsp> {
  const headers: Record<string, string> = { 'x-corbado-projectid': project.projectID, origin: ORIGIN };
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  if (o.process) headers['x-corbado-process-id'] = o.process;
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  const res = await fetch(`${stack.frontendUrl}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

async function back(method: string, path: string, body?: unknown): Promise<Rsp> {
  const headers: Record<string, string> = { authorization: basic(project) };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${stack.backendUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

const capable = { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true, clientCapabilities: { conditionalMediation: true, userVerifyingPlatformAuthenticator: true } };
const noPlatform = { isUserVerifyingPlatformAuthenticatorAvailable: false, isConditionalMediationAvailable: false, clientCapabilities: { hybridTransport: true } };

async function processInit(clientInformation: Record<string, unknown>): Promise<string> {
  const r = await front('POST', '/v2/auth/process/init', { body: { clientInformation } });
  expect(r.status).toBe(200);
  return r.body.token as string;
}

/** The code of the newest mail to `address` after `after` mails, once it arrives. */
async function codeFor(address: string, after: number): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const mail = smtp.received.slice(after).find((m) => toOf(m) === address);
    const code = mail?.text?.match(/\b([0-9]{6})\b/)?.[1];
    if (code) return code;
    if (Date.now() > deadline) throw new Error(`no code mailed to ${address}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const subOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).sub as string;
const finishCode = (process: string, code: string) => front('POST', '/v2/auth/identifier/verify/finish', { process, body: { code, identifierType: 'email', verificationType: 'email-otp', isNewDevice: false } });

/** A sign-up with the address and a passkey, completed without the address ever being proven. */
async function signUpWithPasskey(email: string): Promise<{ userId: string; session: string }> {
  const process = await processInit(capable);
  const signup = await front('POST', '/v2/auth/signup/init', { process, body: { identifiers: [{ type: 'email', identifier: email }] } });
  expect(signup.body.blockBody.block).toBe('passkey-append');
  const { json } = new SoftAuthenticator().createFromOptions(signup.body.blockBody.data.challenge, ORIGIN);
  expect((await front('POST', '/v2/auth/passkey/append/finish', { process, body: { signedChallenge: JSON.stringify(json) } })).body.blockBody.block).toBe('passkey-appended');
  const done = await front('POST', '/v2/auth/process/complete', { process, body: {} });
  expect(done.body.blockBody.block).toBe('completed');
  const session = done.body.blockBody.data.shortSession as string;
  return { userId: subOf(session), session };
}

/** A sign-up with the address proven by the emailed code (no platform authenticator: no passkey). */
async function signUpWithCode(email: string): Promise<{ userId: string; session: string; signupBlock: Record<string, any> }> {
  const process = await processInit(noPlatform);
  const before = smtp.received.length;
  const signup = await front('POST', '/v2/auth/signup/init', { process, body: { identifiers: [{ type: 'email', identifier: email }] } });
  const signupBlock = signup.body.blockBody as Record<string, any>;
  expect(signupBlock).toMatchObject({ block: 'email-verify', data: { identifier: email } });
  const done = await finishCode(process, await codeFor(email, before));
  expect(done.body.blockBody.block).toBe('completed');
  const session = done.body.blockBody.data.shortSession as string;
  return { userId: subOf(session), session, signupBlock };
}

/** Every holder of the address, as the backend API lists them: user and status. */
async function holdersOf(email: string): Promise<Array<{ userID: string; status: string }>> {
  const r = await back('GET', `/v2/identifiers?filter[]=${encodeURIComponent(`identifierValue:eq:${email}`)}&pageSize=100`);
  expect(r.status).toBe(200);
  return (r.body.identifiers as Array<{ userID: string; status: string }>).map((i) => ({ userID: i.userID, status: i.status }));
}

const myIdentifiers = async (session: string) => ((await front('GET', '/v2/me', { bearer: session })).body.identifiers as Array<{ id: string; value: string; status: string }>) ?? [];

describe('(a) pre-hijacking with an unproven address', () => {
  it('blocks nobody, logs nobody into the attacker\'s account, and the victim\'s proof takes the address', async () => {
    const attacker = await signUpWithPasskey(VICTIM);

    // Before the victim comes: a login by the address does not reach the attacker's account.
    const probe = await processInit(noPlatform);
    const sentBefore = smtp.received.length;
    const login = await front('POST', '/v2/auth/login/init', { process: probe, body: { identifierValue: VICTIM, isPhone: false } });
    expect(login.body.blockBody).toMatchObject({ block: 'login-init', data: { fieldError: { code: 'identifier_not_found' } } });

    // The victim's sign-up is not blocked ("log in instead"); the code proves the address.
    const victim = await signUpWithCode(VICTIM);
    expect(victim.userId).not.toBe(attacker.userId);
    // No mail went anywhere for the attacker's account before the victim's sign-up sent its code.
    expect(smtp.received.slice(sentBefore).filter((m) => toOf(m) === VICTIM)).toHaveLength(1);
    expect(await holdersOf(VICTIM)).toEqual([{ userID: victim.userId, status: 'verified' }]);
    expect((await myIdentifiers(attacker.session)).map((i) => i.value)).not.toContain(VICTIM);

    // The victim's code login lands in the victim's account.
    const process = await processInit(noPlatform);
    const before = smtp.received.length;
    const again = await front('POST', '/v2/auth/login/init', { process, body: { identifierValue: VICTIM, isPhone: false } });
    expect(again.body.blockBody.block).toBe('email-verify');
    const done = await finishCode(process, await codeFor(VICTIM, before));
    expect(done.body.blockBody.block).toBe('completed');
    expect(subOf(done.body.blockBody.data.shortSession)).toBe(victim.userId);

    // The attacker signing up with the now proven address is told to log in instead.
    const late = await processInit(capable);
    const refused = await front('POST', '/v2/auth/signup/init', { process: late, body: { identifiers: [{ type: 'email', identifier: VICTIM }] } });
    expect(refused.body.blockBody.data.identifiers[0].error.code).toBe('identifier_already_in_use');
  });
});

describe('(b) a code sent to the attacker\'s address never verifies the victim\'s', () => {
  const victim = 'ceo@victim-corp.example';

  it('PATCH /v2/me/identifier before the finish, and racing it: the victim\'s address stays unverified and unclaimed', async () => {
    const attacker = await signUpWithCode('mallory@attacker.example');
    for (let round = 0; round < 4; round++) {
      const own = `mallory+${round}@attacker.example`;
      expect((await front('POST', '/v2/me/identifier', { bearer: attacker.session, body: { identifierType: 'email', value: own } })).status).toBe(200);
      const added = (await myIdentifiers(attacker.session)).find((i) => i.value === own)!;
      const before = smtp.received.length;
      expect((await front('POST', '/v2/me/identifier/verify/start', { bearer: attacker.session, body: { identifierID: added.id } })).status).toBe(200);
      const code = await codeFor(own, before);
      const patch = () => front('PATCH', '/v2/me/identifier', { bearer: attacker.session, body: { identifierID: added.id, identifierType: 'email', value: victim } });
      const finish = () => front('POST', '/v2/me/identifier/verify/finish', { bearer: attacker.session, body: { identifierID: added.id, code } });
      // Round 0 in order (change, then the code); later rounds race the two.
      if (round === 0) {
        expect((await patch()).status).toBe(200);
        expect((await finish()).status).toBeGreaterThanOrEqual(400);
      } else {
        await Promise.all([patch(), finish()]);
      }
      const mine = (await myIdentifiers(attacker.session)).find((i) => i.id === added.id)!;
      if (mine.value === victim) expect(mine.status).toBe('pending');
      for (const h of await holdersOf(victim)) expect(h.status).toBe('pending');
      await front('DELETE', '/v2/me/identifier', { bearer: attacker.session, body: { identifierID: added.id } });
    }
    // Nobody holds the victim's address claimed: the victim's own sign-up goes through.
    const owner = await signUpWithCode(victim);
    expect(await holdersOf(victim)).toEqual([{ userID: owner.userId, status: 'verified' }]);
  });

  it('POST /v2/auth/identifier/update before the finish: the sign-up cannot complete on the victim\'s address', async () => {
    const target = 'cfo@victim-corp.example';
    const process = await processInit(noPlatform);
    const before = smtp.received.length;
    await front('POST', '/v2/auth/signup/init', { process, body: { identifiers: [{ type: 'email', identifier: 'eve@attacker.example' }] } });
    const code = await codeFor('eve@attacker.example', before);
    const updated = await front('POST', '/v2/auth/identifier/update', { process, body: { identifierType: 'email', value: target } });
    expect(updated.body.blockBody).toMatchObject({ block: 'email-verify', data: { identifier: target } });
    const finish = await finishCode(process, code);
    expect(finish.status).toBeGreaterThanOrEqual(400);
    expect(await holdersOf(target)).toEqual([{ userID: expect.any(String), status: 'pending' }]);
    // A completion is refused too: nothing proved anything about the victim's address.
    expect((await front('POST', '/v2/auth/process/complete', { process, body: {} })).status).toBe(409);
    // Racing the update against the finish with a fresh code: still never the victim's address.
    const raced = await processInit(noPlatform);
    const at = smtp.received.length;
    await front('POST', '/v2/auth/signup/init', { process: raced, body: { identifiers: [{ type: 'email', identifier: 'eve2@attacker.example' }] } });
    const code2 = await codeFor('eve2@attacker.example', at);
    await Promise.all([front('POST', '/v2/auth/identifier/update', { process: raced, body: { identifierType: 'email', value: target } }), finishCode(raced, code2)]);
    for (const h of await holdersOf(target)) expect(h.status).toBe('pending');
  });
});

describe('(c) users the application created are never released', () => {
  it('a pending backend-API user keeps its identifiers through others\' sign-ups and adds of its address, also hours later', async () => {
    const created = await back('POST', '/v2/users', { fullName: 'App User', status: 'pending' });
    expect(created.status).toBe(200);
    const userId = created.body.userID as string;
    expect((await back('POST', `/v2/users/${userId}/identifiers`, { identifierType: 'email', identifierValue: 'app.user@shop.example', status: 'verified' })).status).toBe(200);
    expect((await back('POST', `/v2/users/${userId}/identifiers`, { identifierType: 'email', identifierValue: 'app.pending@shop.example', status: 'pending' })).status).toBe(200);
    // Long past any sign-up process's life.
    const old = new Date(Date.now() - 3 * 3600 * 1000);
    await stack.db.collection('users').updateOne({ _id: userId as never }, { $set: { createdAt: old, updatedAt: old } });
    await stack.db.collection('identifiers').updateMany({ userId }, { $set: { createdAt: old, updatedAt: old } });

    const someone = await signUpWithCode('someone@else.example');
    for (const address of ['app.user@shop.example', 'app.pending@shop.example']) {
      const process = await processInit(capable);
      const signup = await front('POST', '/v2/auth/signup/init', { process, body: { identifiers: [{ type: 'email', identifier: address }] } });
      expect(signup.body.blockBody.data.identifiers[0].error.code).toBe('identifier_already_in_use');
      const add = await front('POST', '/v2/me/identifier', { bearer: someone.session, body: { identifierType: 'email', value: address } });
      expect({ status: add.status, type: add.body.error?.type }).toEqual({ status: 409, type: 'identifier_already_exists' });
    }
    const user = await back('GET', `/v2/users/${userId}`);
    expect(user.status).toBe(200);
    expect(user.body.status).toBe('pending');
    expect((await holdersOf('app.user@shop.example')).map((h) => h.userID)).toEqual([userId]);
    expect((await holdersOf('app.pending@shop.example')).map((h) => h.userID)).toEqual([userId]);
  });
});
