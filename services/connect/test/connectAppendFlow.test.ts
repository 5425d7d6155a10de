/**
 * The connect append flow (F6 init, append start, F10 finish) and passkey management (F7 list,
 * delete) in memory: the domain functions against the embedded store, with a plain fake of the
 * ceremony port. The connect tokens are created as the application's server would.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError, invalidArgument, notFound, RelayedError } from '../../runtime/errors.js';
import { createConnectToken } from '../src/connect-tokens/domain/createConnectToken.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { finishAppend } from '../src/connect-flows/domain/finishAppend.js';
import { startAppend } from '../src/connect-flows/domain/startAppend.js';
import type { ConnectFlowDeps } from '../src/connect-flows/domain/flowDeps.js';
import type { FlowCall } from '../src/shared/domain/flowCall.js';
import { initFlow } from '../src/connect-flows/domain/initFlow.js';
import { deleteManagedPasskey } from '../src/connect-flows/domain/deleteManagedPasskey.js';
import { listManagedPasskeys } from '../src/connect-flows/domain/listManagedPasskeys.js';
import { readProcessToken } from '../src/projects/domain/processTokens.js';
import type { ConnectFlow } from '../src/connect-flows/store/processes.js';
import type { ClientSnapshot } from '../src/shared/store/clientSnapshot.js';
import { ATTESTATION_OPTIONS, CAPABLE_BROWSER, FakeCeremonies, INCAPABLE_BROWSER, passkey } from '../../../test/kit/fakeCeremonyAndChallenge.js';
import { startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let ceremony: FakeCeremonies;
let deps: ConnectFlowDeps;
let A: string;

beforeAll(async () => {
  env = await startTestEnv();
  A = (await createProject(env.deps, { name: 'Append flow', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
});
afterAll(() => env?.close());
beforeEach(() => {
  ceremony = new FakeCeremonies();
  deps = { ...env.deps, ceremony };
});

function callOf(processId?: string): FlowCall {
  return { projectId: A, requestId: 'req-append', clientAddress: '198.51.100.4', userAgent: 'Mozilla/5.0 (test)', ...(processId ? { processId } : {}) };
}

async function init(flow: ConnectFlow = 'append', client: ClientSnapshot = CAPABLE_BROWSER, situation?: string): Promise<FlowCall> {
  const r = await initFlow(deps, callOf(), { flow, client, clientEnvHandle: undefined, flags: {}, invitationToken: '', ...(situation ? { situation } : {}) });
  return callOf((await readProcessToken(deps, A, r.processToken))!);
}

/** A connect token as the application's server creates it for its signed-in user. */
async function token(type: 'passkey-append' | 'passkey-list' | 'passkey-delete', identifier: string, displayName?: string) {
  // Append tokens name the user's display name (the application knows it); the others do not.
  const name = displayName ?? (type === 'passkey-append' ? 'Test User' : undefined);
  return createConnectToken(deps, { projectId: A, type, identifier, ...(name ? { displayName: name } : {}) });
}

async function rejection(p: Promise<unknown>): Promise<DomainError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof DomainError)) throw new Error(`expected a DomainError, got ${String(err)}`);
  return err;
}

const start = (call: FlowCall, appendTokenValue: string, forcePasskeyAppend = false) => startAppend(deps, call, { appendTokenValue, forcePasskeyAppend, loadedMs: 80 });
const finish = (call: FlowCall, more: { customData?: Record<string, string> } = {}) => finishAppend(deps, call, { attestationResponse: '{"id":"new"}', completionType: 'manual', ...more });

describe('append start', () => {
  it('creates the user of the token (identifier verified) and answers the ceremony\'s options with its decision', async () => {
    ceremony.startedAppend = {
      appendAllow: true,
      attestationOptions: ATTESTATION_OPTIONS,
      detectionTags: [],
      decisionInsights: { tag: 'ok', isRestrictedBrowser: false, variant: 'after-hybrid', auto: true, conditional: false },
    };
    const call = await init('append', CAPABLE_BROWSER, 'after-login');
    const { secret } = await token('passkey-append', 'Ada@Example.com', 'Ada Lovelace');
    const r = await start(call, secret);
    expect(r).toEqual({ attestationOptions: ATTESTATION_OPTIONS, variant: 'after-hybrid', isRestrictedBrowser: false, autoAppend: true, conditionalAppend: false });

    const identifier = await deps.identifiers.findByValue(A, 'email', 'ada@example.com');
    expect(identifier?.status).toBe('verified');
    const user = await deps.users.find(A, identifier!.userId);
    expect(user).toMatchObject({ status: 'active', fullName: 'Ada Lovelace' });
    expect(ceremony.calls.startAppend[0].input).toMatchObject({
      userId: user!._id,
      processId: call.processId,
      username: 'ada@example.com',
      forcePasskeyAppend: false,
      situation: 'after-login',
      client: { snapshot: CAPABLE_BROWSER, remoteAddress: '198.51.100.4', userAgent: 'Mozilla/5.0 (test)' },
    });
    expect(await deps.processes.find(A, call.processId!)).toMatchObject({ userId: user!._id, identifier: { type: 'email', value: 'ada@example.com' } });
  });

  it('does not offer the append when the ceremony advises against it, unless the user asked for it', async () => {
    ceremony.startedAppend = { appendAllow: false, attestationOptions: ATTESTATION_OPTIONS, detectionTags: [], decisionInsights: { tag: 'cooldown', isRestrictedBrowser: true, variant: 'unknown', auto: true, conditional: true } };
    const call = await init();
    const r = await start(call, (await token('passkey-append', 'grace@example.com')).secret);
    expect(r).toEqual({ attestationOptions: '', variant: 'default', isRestrictedBrowser: true, autoAppend: false, conditionalAppend: false });

    const forced = await init();
    const f = await start(forced, (await token('passkey-append', 'grace@example.com')).secret, true);
    expect(f.attestationOptions).toBe(ATTESTATION_OPTIONS);
    expect(ceremony.calls.startAppend[1].input).toMatchObject({ forcePasskeyAppend: true });
    // The same identifier names the same user: no second user was created.
    expect(ceremony.calls.startAppend[1].input).toMatchObject({ userId: (ceremony.calls.startAppend[0].input as { userId: string }).userId });
  });

  it('does not offer it to a browser that cannot create a passkey here', async () => {
    const call = await init('append', INCAPABLE_BROWSER);
    const r = await start(call, (await token('passkey-append', 'hopper@example.com')).secret);
    expect(r.attestationOptions).toBe('');
  });

  it('refuses a token of another type, and one another process holds', async () => {
    const call = await init();
    const list = await token('passkey-list', 'ada@example.com');
    expect(await rejection(start(call, list.secret))).toMatchObject({ kind: 'permission_denied', type: 'invalid_connect_token' });
    const { secret } = await token('passkey-append', 'curie@example.com');
    await start(call, secret);
    const other = await init();
    expect(await rejection(start(other, secret))).toMatchObject({ kind: 'permission_denied', type: 'connect_token_in_use' });
    expect(ceremony.calls.startAppend).toHaveLength(1);
  });
});

describe('F10 append finish', () => {
  it('stores the passkey with the ceremony, consumes the token and answers the operation', async () => {
    ceremony.passkeyData = { id: 'cre-5', username: 'noether@example.com', challengeId: 'cha-5', ceremonyType: 'local', aaguidDetails: { aaguid: 'g', name: 'Google Password Manager', iconLight: 'l', iconDark: 'd' } };
    const call = await init();
    const { secret, record } = await token('passkey-append', 'noether@example.com');
    await start(call, secret);
    const op = await finish(call, { customData: { plan: 'pro' } });
    expect(op).toEqual({
      operationType: 'append',
      identifierValue: 'noether@example.com',
      identifierType: 'email',
      ceremonyType: 'local',
      aaguidDetails: { aaguid: 'g', name: 'Google Password Manager', iconLight: 'l', iconDark: 'd' },
    });
    expect(ceremony.calls.finishAppend[0].input).toMatchObject({ processId: call.processId, attestationResponse: '{"id":"new"}', trackingId: 'req-append' });
    expect((await deps.connectTokens.find(A, record._id))?.status).toBe('consumed');
    expect((await deps.processes.find(A, call.processId!))?.finished).toMatchObject({ operation: 'append', completionType: 'manual', customData: { plan: 'pro' } });
  });

  it('records a finish without completionType (web-core 2.x sends none), or with an empty one, as manual', async () => {
    for (const completionType of [undefined, '']) {
      const call = await init();
      const { secret, record } = await token('passkey-append', 'hypatia@example.com');
      await start(call, secret);
      const op = await finishAppend(deps, call, { attestationResponse: '{"id":"new"}', ...(completionType === undefined ? {} : { completionType }) });
      expect(op.operationType).toBe('append');
      expect((await deps.processes.find(A, call.processId!))?.finished).toMatchObject({ operation: 'append', completionType: 'manual' });
      expect((await deps.connectTokens.find(A, record._id))?.status).toBe('consumed');
    }
    expect(ceremony.calls.finishAppend).toHaveLength(2);
  });

  it('releases the token when the ceremony refuses the response, so the user can retry', async () => {
    const call = await init();
    const { secret, record } = await token('passkey-append', 'lamarr@example.com');
    await start(call, secret);
    const refusal = invalidArgument('attestation_invalid', 'the attestation does not verify');
    ceremony.failures.finishAppend = refusal;
    await expect(finish(call)).rejects.toBe(refusal);
    expect((await deps.connectTokens.find(A, record._id))?.status).toBe('initial');

    const op = await finish(call);
    expect(op.operationType).toBe('append');
    expect((await deps.connectTokens.find(A, record._id))?.status).toBe('consumed');
  });

  it('keeps the token consumed when the outcome is unknown (the ceremony is unavailable)', async () => {
    const call = await init();
    const { secret, record } = await token('passkey-append', 'franklin@example.com');
    await start(call, secret);
    const outage = new RelayedError('unavailable', 'upstream_error', 'connection reset', new Error('ECONNRESET'));
    ceremony.failures.finishAppend = outage;
    await expect(finish(call)).rejects.toBe(outage);
    expect((await deps.connectTokens.find(A, record._id))?.status).toBe('consumed');
    // Failing closed: a second finish with the same token is refused, nothing reaches the ceremony.
    expect(await rejection(finish(call))).toMatchObject({ kind: 'failed_precondition', type: 'connect_token_consumed' });
    expect(ceremony.calls.finishAppend).toHaveLength(1);
  });

  it('refuses a finish before the start, and customData beyond its bound', async () => {
    const call = await init();
    expect(await rejection(finish(call))).toMatchObject({ kind: 'failed_precondition', type: 'append_not_started' });
    await start(call, (await token('passkey-append', 'meitner@example.com')).secret);
    expect(await rejection(finish(call, { customData: { big: 'x'.repeat(5000) } }))).toMatchObject({ kind: 'invalid_argument', type: 'validation_error' });
    expect(ceremony.calls.finishAppend).toHaveLength(0);
  });
});

describe('F7 passkey management', () => {
  it('lists the passkeys of the token\'s user with the RP ID and user handle, paging through the ceremony', async () => {
    const call = await init();
    await start(call, (await token('passkey-append', 'manage@example.com')).secret);
    const userId = (await deps.identifiers.findByValue(A, 'email', 'manage@example.com'))!.userId;
    ceremony.passkeys.set(userId, Array.from({ length: 101 }, (_, i) => passkey(`cre-${100 + i}`, `cred-${i}`)));

    const manage = await init('manage');
    const list = await listManagedPasskeys(deps, manage, (await token('passkey-list', 'manage@example.com')).secret);
    expect(list.rpId).toBe('localhost');
    expect(list.userHandle).toBe(ceremony.userHandle);
    expect(list.passkeys).toHaveLength(101);
    expect(list.passkeys[0]).toEqual({ credential: passkey('cre-100', 'cred-0'), createdMs: Date.UTC(2026, 10, 1, 10), lastUsedMs: Date.UTC(2026, 10, 1, 10) });
    expect(ceremony.calls.listPasskeys.map((c) => c.input)).toEqual([
      { userId, page: 1, pageSize: 100 },
      { userId, page: 2, pageSize: 100 },
    ]);
  });

  it('lists again with the same passkey-list token after a delete (as the connect-react passkey list does); another process cannot', async () => {
    const call = await init();
    await start(call, (await token('passkey-append', 'relist@example.com')).secret);
    const userId = (await deps.identifiers.findByValue(A, 'email', 'relist@example.com'))!.userId;
    ceremony.passkeys.set(userId, [passkey('cre-1', 'cred-a'), passkey('cre-2', 'cred-b')]);

    const manage = await init('manage');
    const listing = await token('passkey-list', 'relist@example.com');
    expect((await listManagedPasskeys(deps, manage, listing.secret)).passkeys.map((p) => p.credential.id)).toEqual(['cre-1', 'cre-2']);
    expect((await deps.connectTokens.find(A, listing.record._id))?.status).toBe('consumed');
    await deleteManagedPasskey(deps, manage, { connectToken: (await token('passkey-delete', 'relist@example.com')).secret, credentialId: 'cre-1' });
    expect((await listManagedPasskeys(deps, manage, listing.secret)).passkeys.map((p) => p.credential.id)).toEqual(['cre-2']);

    const other = await init('manage');
    expect(await rejection(listManagedPasskeys(deps, other, listing.secret))).toMatchObject({ kind: 'failed_precondition', type: 'connect_token_consumed' });
  });

  it('gives a list token back when its first list fails, but keeps it consumed when a repeated list fails', async () => {
    const call = await init();
    await start(call, (await token('passkey-append', 'flaky@example.com')).secret);
    const manage = await init('manage');
    const listing = await token('passkey-list', 'flaky@example.com');
    const outage = new RelayedError('unavailable', 'upstream_error', 'connection reset', new Error('ECONNRESET'));
    ceremony.failures.listPasskeys = outage;
    await expect(listManagedPasskeys(deps, manage, listing.secret)).rejects.toBe(outage);
    expect((await deps.connectTokens.find(A, listing.record._id))?.status).toBe('initial');
    await listManagedPasskeys(deps, manage, listing.secret);
    ceremony.failures.listPasskeys = outage;
    await expect(listManagedPasskeys(deps, manage, listing.secret)).rejects.toBe(outage);
    expect((await deps.connectTokens.find(A, listing.record._id))?.status).toBe('consumed');
  });

  it('adds a passkey in the manage process it listed with (connect-react\'s "Add a passkey"), with a passkey-append token; a login process cannot', async () => {
    const manage = await init('manage');
    await listManagedPasskeys(deps, manage, (await token('passkey-list', 'adder@example.com')).secret);
    const { secret, record } = await token('passkey-append', 'adder@example.com');
    const r = await start(manage, secret, true);
    expect(r.attestationOptions).toBe(ATTESTATION_OPTIONS);
    const op = await finishAppend(deps, manage, { attestationResponse: '{"id":"new"}' });
    expect(op).toMatchObject({ operationType: 'append', identifierValue: 'adder@example.com' });
    expect((await deps.connectTokens.find(A, record._id))?.status).toBe('consumed');
    // The manage process still lists and deletes.
    await listManagedPasskeys(deps, manage, (await token('passkey-list', 'adder@example.com')).secret);

    const login = await init('login');
    expect(await rejection(start(login, (await token('passkey-append', 'adder@example.com')).secret, true))).toMatchObject({ kind: 'permission_denied', type: 'wrong_process' });
    expect(await rejection(finishAppend(deps, login, { attestationResponse: '{}' }))).toMatchObject({ kind: 'permission_denied', type: 'wrong_process' });
  });

  it('lists nothing for an identifier nobody has', async () => {
    const manage = await init('manage');
    const list = await listManagedPasskeys(deps, manage, (await token('passkey-list', 'unknown@example.com')).secret);
    expect(list).toEqual({ passkeys: [], rpId: 'localhost', userHandle: '' });
    expect(ceremony.calls.listPasskeys).toHaveLength(0);
  });

  it('deletes a passkey named by its WebAuthn credential ID; an unknown one releases the token', async () => {
    const call = await init();
    await start(call, (await token('passkey-append', 'delete@example.com')).secret);
    const userId = (await deps.identifiers.findByValue(A, 'email', 'delete@example.com'))!.userId;
    ceremony.passkeys.set(userId, [passkey('cre-1', 'cred-a'), passkey('cre-2', 'cred-b')]);

    const manage = await init('manage');
    const del = await token('passkey-delete', 'delete@example.com');
    expect(await rejection(deleteManagedPasskey(deps, manage, { connectToken: del.secret, credentialId: 'cred-x' }))).toMatchObject({ kind: 'not_found', type: 'passkey_not_found' });
    expect((await deps.connectTokens.find(A, del.record._id))?.status).toBe('initial');

    await deleteManagedPasskey(deps, manage, { connectToken: del.secret, credentialId: 'cred-b' });
    expect(ceremony.calls.deletePasskey.map((c) => c.input)).toEqual([{ userId, passkeyId: 'cre-2' }]);
    expect(ceremony.passkeys.get(userId)?.map((p) => p.id)).toEqual(['cre-1']);
    expect((await deps.connectTokens.find(A, del.record._id))?.status).toBe('consumed');
  });

  it('releases the token when the ceremony does not know the passkey', async () => {
    const call = await init();
    await start(call, (await token('passkey-append', 'gone@example.com')).secret);
    const manage = await init('manage');
    const del = await token('passkey-delete', 'gone@example.com');
    const refusal = notFound('credential_not_found', 'no such passkey');
    ceremony.failures.deletePasskey = refusal;
    await expect(deleteManagedPasskey(deps, manage, { connectToken: del.secret, credentialId: 'cre-77' })).rejects.toBe(refusal);
    expect((await deps.connectTokens.find(A, del.record._id))?.status).toBe('initial');
  });
});
