/**
 * The two auth-process routes of the web SDK's ProcessService that sign-up pages use around the
 * verification step, through the real gateway: POST /v2/auth/identifier/update (updateEmail,
 * updatePhone, updateUsername: correct a mistyped identifier before the sign-up completes) and
 * GET /v2/auth/identifier/verify/status (getVerificationStatus: polled while an email link is out).
 * Codes and links are read from a real SMTP server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSmtp, toOf } from '../../services/challenge/test/testSmtp.js';
import { SoftAuthenticator } from '../kit/softAuthenticator.js';
import { basic, startStack, type ProjectJson, type Stack } from '../kit/startStack.js';

const ORIGIN = 'http://localhost:3000';

let stack: Stack;
let project: ProjectJson;
let other: ProjectJson;
const smtp = new TestSmtp();

beforeAll(async () => {
  await smtp.start();
  stack = await startStack({ smtpUrl: smtp.url, emailFrom: 'Identifier Update E2E <no-reply@localhost>' });
  const settings = ['--challenge-delivery', 'service', '--email-link-url', `${ORIGIN}/verify`, '--self-service', 'enabled'];
  project = await stack.createProject('auth-identifier-e2e', [ORIGIN], settings);
  other = await stack.createProject('auth-identifier-e2e-other', [ORIGIN], settings);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await smtp.stop();
});

type Rsp = { status: number; body: Record<string, any> };

async function front(method: string, path: string, o: { process?: string; bearer?: string; body?: unknown; as?: ProjectJson } = {}): Promise<Rsp> {
  const headers: Record<string, string> = { 'x-corbado-projectid': (o.as ?? project).projectID, origin: ORIGIN };
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  if (o.process) headers['x-corbado-process-id'] = o.process;
  if (o.bearer) headers.authorization = `Bearer ${o.bearer}`;
  const res = await fetch(`${stack.frontendUrl}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : {} };
}

function expectError(r: Rsp, status: number, type: string) {
  expect({ status: r.status, type: r.body.error?.type }).toEqual({ status, type });
  expect(r.body).toMatchObject({ httpStatusCode: status, message: expect.any(String), requestData: { requestID: expect.any(String) } });
}

const capable = { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true, clientCapabilities: { conditionalMediation: true, userVerifyingPlatformAuthenticator: true } };
const noPlatform = { isUserVerifyingPlatformAuthenticatorAvailable: false, isConditionalMediationAvailable: false, clientCapabilities: { hybridTransport: true } };

/** A sign-up with these identifiers; returns the process token and the first block. */
async function signUp(identifiers: Array<{ type: string; identifier: string }>, client: Record<string, unknown> = noPlatform, as: ProjectJson = project): Promise<{ process: string; block: Record<string, any> }> {
  const init = await front('POST', '/v2/auth/process/init', { body: { clientInformation: client }, as });
  expect(init.status).toBe(200);
  const r = await front('POST', '/v2/auth/signup/init', { process: init.body.token, body: { identifiers }, as });
  expect(r.status).toBe(200);
  return { process: init.body.token as string, block: r.body.blockBody };
}

/** The newest mail to `address` after `after` mails, once it arrives. */
async function mailTo(address: string, after: number): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const mail = smtp.received.slice(after).find((m) => toOf(m) === address);
    if (mail?.text) return mail.text;
    if (Date.now() > deadline) throw new Error(`no mail to ${address}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const codeIn = (text: string) => /\b([0-9]{6})\b/.exec(text)![1]!;
const linkTokenIn = (text: string) => /[?&]token=([A-Za-z0-9_-]+)/.exec(text)![1]!;

/** A user the backend API created, with the address verified (the application vouches for it). */
async function vouchedUser(email: string): Promise<string> {
  const headers = { authorization: basic(project), 'content-type': 'application/json' };
  const user = await fetch(`${stack.backendUrl}/v2/users`, { method: 'POST', headers, body: JSON.stringify({ status: 'active' }) }).then((r) => r.json() as Promise<{ userID: string }>);
  const r = await fetch(`${stack.backendUrl}/v2/users/${user.userID}/identifiers`, { method: 'POST', headers, body: JSON.stringify({ identifierType: 'email', identifierValue: email, status: 'verified' }) });
  expect(r.status).toBe(200);
  return user.userID;
}

const update = (process: string, identifierType: string, value: string) => front('POST', '/v2/auth/identifier/update', { process, body: { identifierType, value } });
const status = (process: string) => front('GET', '/v2/auth/identifier/verify/status', { process });

describe('POST /v2/auth/identifier/update', () => {
  it('corrects a mistyped email in the email-verify block: the old code no longer counts, the new address is verified', async () => {
    const before = smtp.received.length;
    const { process, block } = await signUp([{ type: 'email', identifier: 'typo@exmaple.com' }]);
    expect(block).toMatchObject({ block: 'email-verify', data: { identifier: 'typo@exmaple.com', verificationMethod: 'email-otp' } });
    const oldCode = codeIn(await mailTo('typo@exmaple.com', before));

    const r = await update(process, 'email', ' Fixed@Example.com ');
    expect(r.status).toBe(200);
    expect(r.body.blockBody).toMatchObject({ block: 'email-verify', authType: 'signup', data: { blockType: 'email-verify', identifier: 'fixed@example.com', verificationMethod: 'email-otp' } });
    expect(r.body.blockBody.error).toBeUndefined();
    expect(r.body.common).toMatchObject({ appName: expect.any(String), frontendApiUrl: project.frontendApiUrl });

    // The code went to the old address: it proves nothing about the new one.
    const stale = await front('POST', '/v2/auth/identifier/verify/finish', { process, body: { code: oldCode, identifierType: 'email', verificationType: 'email-otp' } });
    expectError(stale, 400, 'validation_error');

    // The SDK resends at once after an update (no resend wait), to the new address.
    const sentAt = smtp.received.length;
    const resend = await front('POST', '/v2/auth/identifier/verify/start', { process, body: { identifierType: 'email', verificationType: 'email-otp' } });
    expect(resend.body.blockBody).toMatchObject({ block: 'email-verify', data: { identifier: 'fixed@example.com' } });
    const code = codeIn(await mailTo('fixed@example.com', sentAt));
    const done = await front('POST', '/v2/auth/identifier/verify/finish', { process, body: { code, identifierType: 'email', verificationType: 'email-otp' } });
    expect(done.body.blockBody.block).toBe('completed');
    const me = await front('GET', '/v2/me', { bearer: done.body.blockBody.data.shortSession });
    expect(me.body.identifiers).toEqual([expect.objectContaining({ value: 'fixed@example.com', type: 'email', status: 'verified' })]);
    // The mistyped address is free again.
    const again = await signUp([{ type: 'email', identifier: 'typo@exmaple.com' }]);
    expect(again.block.block).toBe('email-verify');
  });

  it('in the passkey-append block: fresh options for the new value; another identifier of the sign-up changes alone', async () => {
    const { process, block } = await signUp([{ type: 'email', identifier: 'append.typo@example.com' }, { type: 'username', identifier: 'apendr' }], capable);
    expect(block.block).toBe('passkey-append');
    const r = await update(process, 'email', 'append.fixed@example.com');
    expect(r.body.blockBody).toMatchObject({ block: 'passkey-append', data: { identifierValue: 'append.fixed@example.com', identifierType: 'email' } });
    expect(JSON.parse(r.body.blockBody.data.challenge).publicKey.user.name).toBe('append.fixed@example.com');
    const u = await update(process, 'username', 'appender');
    expect(u.body.blockBody).toMatchObject({ block: 'passkey-append', data: { identifierValue: 'append.fixed@example.com' } });

    const { json } = new SoftAuthenticator().createFromOptions(u.body.blockBody.data.challenge, ORIGIN);
    const appended = await front('POST', '/v2/auth/passkey/append/finish', { process, body: { signedChallenge: JSON.stringify(json) } });
    expect(appended.body.blockBody.block).toBe('passkey-appended');
    const done = await front('POST', '/v2/auth/process/complete', { process, body: {} });
    const me = await front('GET', '/v2/me', { bearer: done.body.blockBody.data.shortSession });
    // Both were created in the same instant, so their order is not part of the answer.
    expect(me.body.identifiers.map((i: { value: string }) => i.value).sort()).toEqual(['append.fixed@example.com', 'appender']);
  });

  it('answers a malformed or taken value in the block with the error codes the SDK translates, changing nothing', async () => {
    // Taken means claimed: here the application vouches for the address (an unfinished sign-up's
    // unproven assertion of a value blocks nobody since #29; see test/attacks/identifierClaims.test.ts).
    await vouchedUser('taken.update@example.com');
    await signUp([{ type: 'email', identifier: 'asserted.update@example.com' }]);
    const { process } = await signUp([{ type: 'email', identifier: 'keeper@example.com' }, { type: 'phone', identifier: '+4915100000003' }]);
    const bad = await update(process, 'email', 'not-an-email');
    expect(bad.status).toBe(200);
    expect(bad.body.blockBody).toMatchObject({ block: 'email-verify', data: { identifier: 'keeper@example.com' }, error: { code: 'identifier_invalid_format', message: expect.stringContaining('email') } });
    const taken = await update(process, 'email', 'Taken.Update@example.com');
    expect(taken.body.blockBody).toMatchObject({ block: 'email-verify', data: { identifier: 'keeper@example.com' }, error: { code: 'identifier_already_in_use' } });
    const phone = await update(process, 'phone', '12');
    expect(phone.body.blockBody.error).toMatchObject({ code: 'identifier_invalid_format' });
    // The same value changes nothing and is no error.
    const same = await update(process, 'email', 'KEEPER@example.com');
    expect(same.body.blockBody).toMatchObject({ block: 'email-verify', data: { identifier: 'keeper@example.com' } });
    expect(same.body.blockBody.error).toBeUndefined();
    // A value another sign-up only asserted is free to take.
    const asserted = await update(process, 'email', 'asserted.update@example.com');
    expect(asserted.body.blockBody).toMatchObject({ block: 'email-verify', data: { identifier: 'asserted.update@example.com' } });
    expect(asserted.body.blockBody.error).toBeUndefined();
  });

  it('refuses a type the sign-up does not have, bad fields, a login, a completed process', async () => {
    const { process } = await signUp([{ type: 'email', identifier: 'refuse.update@example.com' }]);
    expectError(await update(process, 'phone', '+4915100000004'), 400, 'validation_error');
    for (const body of [{}, { identifierType: 'email' }, { value: 'x@example.com' }, { identifierType: 'fax', value: 'x' }, { identifierType: 'email', value: '' }, { identifierType: 'email', value: 'x'.repeat(257) }]) {
      expectError(await front('POST', '/v2/auth/identifier/update', { process, body }), 400, 'validation_error');
    }

    const login = await front('POST', '/v2/auth/process/init', { body: { clientInformation: noPlatform } });
    // A login needs a claimed address (the sign-up's above is unproven): one the application vouches for.
    await vouchedUser('refuse.login@example.com');
    const l = await front('POST', '/v2/auth/login/init', { process: login.body.token, body: { identifierValue: 'refuse.login@example.com', isPhone: false } });
    expect(l.status).toBe(200);
    // The login sends a code to the address (email-verify), a block a sign-up could correct from; a login cannot.
    expect(l.body.blockBody.block).toBe('email-verify');
    expectError(await update(login.body.token, 'email', 'other@example.com'), 409, 'identifier_update_not_allowed');

    // Right after signup/init the process is in email-verify; signup-init itself is not a block to update from.
    const fresh = await front('POST', '/v2/auth/process/init', { body: { clientInformation: noPlatform, preferredBlock: 'signup-init' } });
    expectError(await update(fresh.body.token, 'email', 'x@example.com'), 409, 'invalid_block');
  });

  it('refuses no token, a client key alone, a session token and a process token of another project', async () => {
    const body = { identifierType: 'email', value: 'x@example.com' };
    expectError(await front('POST', '/v2/auth/identifier/update', { body }), 401, 'missing_credentials');
    const theirs = await signUp([{ type: 'email', identifier: 'theirs.update@example.com' }], noPlatform, other);
    expectError(await front('POST', '/v2/auth/identifier/update', { process: theirs.process, body }), 401, 'project_mismatch');
    const before = smtp.received.length;
    const { process } = await signUp([{ type: 'email', identifier: 'session.update@example.com' }]);
    const code = codeIn(await mailTo('session.update@example.com', before));
    const done = await front('POST', '/v2/auth/identifier/verify/finish', { process, body: { code, identifierType: 'email', verificationType: 'email-otp' } });
    expect(done.body.blockBody.block).toBe('completed');
    expectError(await front('POST', '/v2/auth/identifier/update', { bearer: done.body.blockBody.data.shortSession, body }), 401, 'wrong_token_kind');
    expectError(await update(process, 'email', 'late@example.com'), 409, 'process_completed');
  });
});

describe('GET /v2/auth/identifier/verify/status', () => {
  it('waits while the email link is out; the link opened elsewhere ends the wait (email-link-verified)', async () => {
    const { process, block } = await signUp([{ type: 'email', identifier: 'link.wait@example.com' }], capable);
    expect(block.block).toBe('passkey-append');
    // The page offers the link instead of the passkey.
    const before = smtp.received.length;
    const start = await front('POST', '/v2/auth/identifier/verify/start', { process, body: { identifierType: 'email', verificationType: 'email-link' } });
    expect(start.body.blockBody).toMatchObject({ block: 'email-verify', data: { verificationMethod: 'email-link' } });
    const token = linkTokenIn(await mailTo('link.wait@example.com', before));

    const waiting = await status(process);
    expect(waiting.status).toBe(200);
    expect(waiting.body.blockBody).toMatchObject({ block: 'email-verify', authType: 'signup', data: { blockType: 'email-verify', verificationMethod: 'email-link', identifier: 'link.wait@example.com' } });
    expect(waiting.body.blockBody.continueOnOtherDevice).toBeUndefined();
    // Polling changes nothing.
    expect((await status(process)).body.blockBody).toEqual(waiting.body.blockBody);

    // The link's page (another tab) finishes with the process token the link carries.
    const opened = await front('POST', '/v2/auth/identifier/verify/finish', { process, body: { code: token, identifierType: 'email', verificationType: 'email-link', isNewDevice: true } });
    expect(opened.body.blockBody.block).toBe('passkey-append');
    const moved = await status(process);
    expect(moved.body.blockBody).toMatchObject({ block: 'email-verify', continueOnOtherDevice: { reason: 'email-link-verified' } });

    // Once that tab completes the process, the waiting page is told so.
    const { json } = new SoftAuthenticator().createFromOptions(opened.body.blockBody.data.challenge, ORIGIN);
    await front('POST', '/v2/auth/passkey/append/finish', { process, body: { signedChallenge: JSON.stringify(json) } });
    expect((await front('POST', '/v2/auth/process/complete', { process, body: {} })).body.blockBody.block).toBe('completed');
    const completed = await status(process);
    expect(completed.body.blockBody).toMatchObject({ continueOnOtherDevice: { reason: 'process-already-completed' } });
  });

  it('is 409 where no verification runs, and refuses other tokens', async () => {
    const { process } = await signUp([{ type: 'email', identifier: 'no.link@example.com' }], capable);
    expectError(await status(process), 409, 'invalid_block');
    expectError(await front('GET', '/v2/auth/identifier/verify/status'), 401, 'missing_credentials');
    const theirs = await signUp([{ type: 'email', identifier: 'theirs.status@example.com' }], noPlatform, other);
    expectError(await front('GET', '/v2/auth/identifier/verify/status', { process: theirs.process }), 401, 'project_mismatch');
    // Its own project answers it: still waiting for the code.
    const own = await front('GET', '/v2/auth/identifier/verify/status', { process: theirs.process, as: other });
    expect(own.body.blockBody).toMatchObject({ block: 'email-verify', data: { identifier: 'theirs.status@example.com' } });
    const connect = await front('POST', '/v2/connect/login/init', { body: { clientInformation: capable, flags: {} } });
    const connectToken = (connect.body.token ?? connect.body.processID) as string;
    expectError(await front('GET', '/v2/auth/identifier/verify/status', { process: connectToken }), 403, 'wrong_process');
  });
});
