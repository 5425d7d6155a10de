/**
 * MeService (/v2/me/*) in memory: real repositories on the embedded store, the ceremony and
 * challenge services as recording fakes. The WebAuthn parts run for real end to end
 * (test/e2e/me.test.ts); here: session checks, identifiers, the F3 decisions, the F4 and F11
 * bookkeeping and the errors.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, createRouterTransport, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CeremonyService, CredentialSchema, type Credential } from '../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { ChallengeService } from '../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import { MeService } from '../../../gen/passkeyauth/connect/v1/me_service_pb.js';
import { HEADERS } from '../../runtime/context.js';
import { failedPrecondition, invalidArgument, notFound } from '../../runtime/errors.js';
import { toConnectError } from '../../runtime/interceptors.js';
import { rpcOneTimeCodes } from '../src/clients/challengeClient.js';
import { rpcPasskeyCeremonies } from '../src/clients/ceremonyClient.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { startSession } from '../src/sessions/domain/startSession.js';
import { updateSessionSettings } from '../src/projects/domain/updateSessionSettings.js';
import type { IdentifierType } from '../src/users/store/identifiers.js';
import { newId } from '../../runtime/ids.js';
import { inMemoryTransport, startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let me: Client<typeof MeService>;
let A: string;
let B: string;

/** What the fake ceremony was asked, and what it answers. */
const ceremony = {
  credentials: new Map<string, Credential[]>(),
  startAppends: [] as Array<{ userId: string; processId: string; username: string; force: boolean; situation: string; handle: string }>,
  finishAppends: [] as Array<{ userId: string; processId: string; handle: string }>,
  deletes: [] as Array<{ userId: string; credentialId: string }>,
  /** Detection tags startAppend reports. */
  tags: [] as string[],
};

/** What the fake challenge service was asked; the right code is always 424242. */
const challenges = {
  created: [] as Array<{ userId: string; challengeType: string; identifierValue: string; challengeId: string; address: string | null }>,
  verified: [] as Array<{ userId: string; challengeId: string; value: string }>,
  expired: new Set<string>(),
  notified: [] as Array<{ userId: string; email: string; kind: string; passkeyName: string; projectId: string | null }>,
};
const CODE = '424242';

function fakeCeremony() {
  return createClient(
    CeremonyService,
    createRouterTransport((router) =>
      router.service(CeremonyService, {
        listCredentials(req) {
          const all = ceremony.credentials.get(req.userId) ?? [];
          return { credentials: all, paging: { page: 1, totalPages: 1, totalItems: all.length } };
        },
        deleteCredential(req) {
          ceremony.deletes.push({ userId: req.userId, credentialId: req.credentialId });
          const all = ceremony.credentials.get(req.userId) ?? [];
          if (!all.some((c) => c.id === req.credentialId)) throw toConnectError(notFound('credential_not_found', `user ${req.userId} has no passkey ${req.credentialId}`));
          ceremony.credentials.set(req.userId, all.filter((c) => c.id !== req.credentialId));
          return {};
        },
        startAppend(req) {
          ceremony.startAppends.push({
            userId: req.userId,
            processId: req.processId,
            username: req.username,
            force: req.passkeyIntelFlags?.forcePasskeyAppend ?? false,
            situation: req.situation,
            handle: req.clientInformation?.clientEnvHandle ?? '',
          });
          return {
            appendAllow: true,
            attestationOptions: JSON.stringify({ publicKey: { challenge: 'c', user: { name: req.username } } }),
            detectionInsights: { tags: ceremony.tags.map((name) => ({ category: 'passkey', name })) },
          };
        },
        finishAppend(req) {
          ceremony.finishAppends.push({ userId: req.userId, processId: req.processId, handle: req.clientInformation?.clientEnvHandle ?? '' });
          if (req.attestationResponse === 'bad') throw toConnectError(invalidArgument('attestation_invalid', 'bad attestation'));
          return { passkeyData: { id: 'cre-1', userId: req.userId, aaguidDetails: { aaguid: 'a', name: 'Test Keychain', iconLight: '', iconDark: '' } } };
        },
      }),
    ),
  );
}

function fakeChallenges() {
  return createClient(
    ChallengeService,
    createRouterTransport((router) =>
      router.service(ChallengeService, {
        createAndDeliverChallenge(req, ctx) {
          const challengeId = newId('cha');
          challenges.created.push({ userId: req.userId, challengeType: req.challengeType, identifierValue: req.identifierValue, challengeId, address: ctx.requestHeader.get(HEADERS.clientAddress) });
          const expires = BigInt(Math.floor(Date.now() / 1000) + 300);
          return { challenge: { challengeId, type: req.challengeType, identifierValue: req.identifierValue, expires, status: 'pending' } };
        },
        verifyChallenge(req) {
          challenges.verified.push({ userId: req.userId, challengeId: req.challengeId, value: req.value });
          if (challenges.expired.has(req.challengeId)) throw toConnectError(failedPrecondition('challenge_expired', 'the challenge expired'));
          if (req.value !== CODE) throw toConnectError(invalidArgument('challenge_value_invalid', 'the value is wrong; 4 attempt(s) left', [{ field: 'value', message: 'is wrong; 4 attempt(s) left' }]));
          const created = challenges.created.find((c) => c.challengeId === req.challengeId);
          return { challenge: { challengeId: req.challengeId, identifierValue: created?.identifierValue ?? '', status: 'completed' } };
        },
        sendNotification(req, ctx) {
          challenges.notified.push({ userId: req.userId, email: req.email, kind: req.kind, passkeyName: req.details.passkeyName ?? '', projectId: ctx.requestHeader.get(HEADERS.projectId) });
          return {};
        },
      }),
    ),
  );
}

beforeAll(async () => {
  env = await startTestEnv();
  // Fake services behind the real adapters, so the messages they build and the errors they relay are tested too.
  me = createClient(MeService, inMemoryTransport({ ...env.deps, ceremony: rpcPasskeyCeremonies(fakeCeremony()), challenges: rpcOneTimeCodes(fakeChallenges()) }));
  A = (await createProject(env.deps, { name: 'Me A', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
  B = (await createProject(env.deps, { name: 'Me B', rpId: 'localhost', origins: ['http://localhost:3000'] })).project._id;
});
afterAll(() => env?.close());
beforeEach(() => {
  ceremony.startAppends = [];
  ceremony.finishAppends = [];
  ceremony.deletes = [];
  ceremony.tags = [];
  challenges.created = [];
  challenges.verified = [];
  challenges.notified = [];
});

interface Signed {
  userId: string;
  sessionId: string;
  refreshToken: string;
  identifiers: Record<string, string>;
}

/** A user with identifiers (value → ID) and an active session, straight in the stores. */
async function signedIn(projectId: string, identifiers: Array<[IdentifierType, string, 'pending' | 'primary' | 'verified']>, fullName?: string): Promise<Signed> {
  const now = new Date();
  const userId = newId('usr');
  await env.deps.users.insert({ _id: userId, projectId, status: 'active', ...(fullName ? { fullName } : {}), createdAt: now, updatedAt: now });
  const ids: Record<string, string> = {};
  for (const [i, [type, value, status]] of identifiers.entries()) {
    const id = newId('ide');
    // Distinct creation times keep "oldest first" well defined.
    const at = new Date(now.getTime() + i);
    await env.deps.identifiers.insert({ _id: id, projectId, userId, type, value, status, source: 'self', claimed: status !== 'pending', createdAt: at, updatedAt: at });
    ids[value] = id;
  }
  const { sessionId, refreshToken } = await startSession(env.deps, { projectId, userId, withRefreshToken: true });
  return { userId, sessionId, refreshToken: refreshToken!, identifiers: ids };
}

/** Call options as the gateway sends them for a verified session token. */
function as(projectId: string, s: Pick<Signed, 'userId' | 'sessionId'>, extra: Record<string, string> = {}) {
  return { headers: { [HEADERS.projectId]: projectId, [HEADERS.tokenKind]: 'session', [HEADERS.userId]: s.userId, [HEADERS.sessionId]: s.sessionId, ...extra } };
}

async function rpcError(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    const ce = ConnectError.from(err);
    const info = ce.findDetails(ErrorInfoSchema)[0];
    return { code: ce.code, type: info?.type ?? '', validation: info?.validation.map((v) => v.field) ?? [] };
  }
  throw new Error('expected the call to fail');
}

const capable = { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true, clientCapabilities: { userVerifyingPlatformAuthenticator: true, hybridTransport: true } };
const noPlatform = { isUserVerifyingPlatformAuthenticatorAvailable: false, isConditionalMediationAvailable: true, clientCapabilities: { hybridTransport: true } };

function credential(id: string): Credential {
  return create(CredentialSchema, {
    id,
    credentialId: `cred-${id}`,
    attestationType: 'none',
    transport: ['internal'],
    backupEligible: true,
    backupState: true,
    authenticatorAaguid: '00000000-0000-0000-0000-000000000000',
    sourceOs: 'macOS',
    sourceBrowser: 'Chrome',
    lastUsed: '2024-05-01T10:00:00',
    created: '2024-04-01T09:30:00',
    status: 'active',
  });
}

describe('the session', () => {
  it('is required: no sub or sid is 401', async () => {
    const s = await signedIn(A, [['email', 'nosid@example.com', 'verified']]);
    expect(await rpcError(me.getMe({}, { headers: { [HEADERS.projectId]: A } }))).toMatchObject({ code: Code.Unauthenticated, type: 'session_token_required' });
    expect(await rpcError(me.getMe({}, as(A, { userId: s.userId, sessionId: '' })))).toMatchObject({ code: Code.Unauthenticated });
    expect(await rpcError(me.getMe({}, as(A, { userId: '', sessionId: s.sessionId })))).toMatchObject({ code: Code.Unauthenticated });
  });

  it('must be active, of that user and of that project', async () => {
    const s = await signedIn(A, [['email', 'ended@example.com', 'verified']]);
    const other = await signedIn(A, [['email', 'other-session@example.com', 'verified']]);
    expect((await me.getMe({}, as(A, s))).id).toBe(s.userId);
    // Another user's session with this user's sub.
    expect(await rpcError(me.getMe({}, as(A, { userId: s.userId, sessionId: other.sessionId })))).toMatchObject({ code: Code.Unauthenticated, type: 'session_ended' });
    expect(await rpcError(me.getMe({}, as(B, s)))).toMatchObject({ code: Code.Unauthenticated, type: 'session_ended' });
    await env.deps.sessions.revokeSession(A, s.sessionId, 'logout', new Date());
    for (const call of [me.getMe({}, as(A, s)), me.listMyPasskeys({}, as(A, s)), me.appendPasskeyStart({ clientInformation: capable }, as(A, s))]) {
      expect(await rpcError(call)).toMatchObject({ code: Code.Unauthenticated, type: 'session_ended' });
    }
    expect(ceremony.startAppends).toHaveLength(0);
  });

  it('ends with its user', async () => {
    const s = await signedIn(A, [['email', 'gone@example.com', 'verified']]);
    await env.deps.users.delete(A, s.userId);
    expect(await rpcError(me.getMe({}, as(A, s)))).toMatchObject({ code: Code.Unauthenticated, type: 'session_ended' });
  });
});

describe('GET /v2/me', () => {
  it('returns the user with their identifiers, oldest first, and no social accounts when none is linked', async () => {
    const s = await signedIn(A, [['email', 'ada@example.com', 'primary'], ['phone', '+4915112345678', 'pending'], ['username', 'ada', 'verified']], 'Ada Lovelace');
    const r = await me.getMe({}, as(A, s));
    expect(r.id).toBe(s.userId);
    expect(r.fullName).toBe('Ada Lovelace');
    expect(r.socialAccounts).toEqual([]);
    expect(r.identifiers.map(({ id, value, type, status }) => ({ id, value, type, status }))).toEqual([
      { id: s.identifiers['ada@example.com'], value: 'ada@example.com', type: 'email', status: 'primary' },
      { id: s.identifiers['+4915112345678'], value: '+4915112345678', type: 'phone', status: 'pending' },
      { id: s.identifiers['ada'], value: 'ada', type: 'username', status: 'verified' },
    ]);
  });

  it('has "" as fullName when the user has none', async () => {
    const s = await signedIn(A, [['email', 'noname@example.com', 'verified']]);
    expect((await me.getMe({}, as(A, s))).fullName).toBe('');
  });

  it('lists the social accounts the application linked to the user, oldest first, and only theirs', async () => {
    const s = await signedIn(A, [['email', 'linked@example.com', 'verified']]);
    const other = await signedIn(A, [['email', 'unlinked@example.com', 'verified']]);
    const link = (providerType: 'github' | 'google', foreignId: string, createdAt: Date) =>
      env.deps.socialAccounts.insert({ _id: newId('soc'), projectId: A, userId: s.userId, providerType, identifierValue: 'linked@example.com', foreignId, avatarUrl: '', fullName: 'Linked', createdAt });
    await link('github', 'me-gh-1', new Date(1000));
    await link('google', 'me-g-1', new Date(2000));
    expect((await me.getMe({}, as(A, s))).socialAccounts.map((a) => ({ ...a }))).toEqual([
      { $typeName: 'passkeyauth.connect.v1.MeSocialAccount', providerType: 'github', identifierValue: 'linked@example.com', avatarUrl: '', fullName: 'Linked' },
      { $typeName: 'passkeyauth.connect.v1.MeSocialAccount', providerType: 'google', identifierValue: 'linked@example.com', avatarUrl: '', fullName: 'Linked' },
    ]);
    expect((await me.getMe({}, as(A, other))).socialAccounts).toEqual([]);
  });
});

describe('passkeys', () => {
  it('lists them as the connect manage list does, in one page', async () => {
    const s = await signedIn(A, [['email', 'list@example.com', 'verified']]);
    ceremony.credentials.set(s.userId, [credential('cre-101'), credential('cre-102')]);
    const r = await me.listMyPasskeys({}, as(A, s));
    expect(r.paging).toMatchObject({ page: 1, totalPages: 1, totalItems: 2 });
    expect(r.passkeys.map((p) => p.id)).toEqual(['cre-101', 'cre-102']);
    expect(r.passkeys[0]).toMatchObject({ credentialId: 'cred-cre-101', transport: ['internal'], sourceOs: 'macOS', tags: [] });
    expect(r.passkeys[0]!.createdMs).toBe(BigInt(Date.parse('2024-04-01T09:30:00Z')));
    expect(r.passkeys[0]!.lastUsedMs).toBe(BigInt(Date.parse('2024-05-01T10:00:00Z')));
    const none = await signedIn(A, [['email', 'nopasskeys@example.com', 'verified']]);
    expect(await me.listMyPasskeys({}, as(A, none))).toMatchObject({ passkeys: [], paging: { page: 1, totalPages: 1, totalItems: 0 } });
  });

  it('deletes their own passkey by ID; another user\'s is 404', async () => {
    const s = await signedIn(A, [['email', 'del@example.com', 'verified']]);
    const other = await signedIn(A, [['email', 'del-other@example.com', 'verified']]);
    ceremony.credentials.set(s.userId, [credential('cre-201')]);
    ceremony.credentials.set(other.userId, [credential('cre-202')]);
    expect((await me.deleteMyPasskey({ credentialId: 'cre-201' }, as(A, s))).id).toBe('cre-201');
    expect(ceremony.deletes).toEqual([{ userId: s.userId, credentialId: 'cre-201' }]);
    // The ceremony is asked for the signed-in user, never for the passkey's owner.
    expect(await rpcError(me.deleteMyPasskey({ credentialId: 'cre-202' }, as(A, s)))).toMatchObject({ code: Code.NotFound, type: 'credential_not_found' });
    expect(ceremony.credentials.get(other.userId)).toHaveLength(1);
    expect(await rpcError(me.deleteMyPasskey({ credentialId: 'abc' }, as(A, s)))).toMatchObject({ code: Code.InvalidArgument, validation: ['credentialID'] });
  });
});

describe('F3/F4: append a passkey', () => {
  it('starts with the primary identifier as username, forced, and issues a client environment', async () => {
    const s = await signedIn(A, [['username', 'grace', 'verified'], ['email', 'grace@example.com', 'primary']]);
    const r = await me.appendPasskeyStart({ clientInformation: capable }, as(A, s));
    expect(JSON.parse(r.attestationOptions).publicKey.user.name).toBe('grace@example.com');
    expect(r.appendNotAllowedReason).toBeUndefined();
    expect(r.newClientEnvHandle).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(ceremony.startAppends).toEqual([{ userId: s.userId, processId: expect.stringMatching(/^mep-[0-9]{20}$/), username: 'grace@example.com', force: true, situation: 'default', handle: r.newClientEnvHandle }]);

    // The known handle is kept (no new one), and F4 finishes the ceremony F3 started, in that environment.
    const again = await me.appendPasskeyStart({ clientInformation: { ...capable, clientEnvHandle: r.newClientEnvHandle } }, as(A, s));
    expect(again.newClientEnvHandle).toBeUndefined();
    const second = ceremony.startAppends[1]!;
    await me.appendPasskeyFinish({ attestationResponse: '{"id":"x"}', clientInformation: capable }, as(A, s));
    expect(ceremony.finishAppends).toEqual([{ userId: s.userId, processId: second.processId, handle: r.newClientEnvHandle }]);
    // The pending append is used up.
    expect(await rpcError(me.appendPasskeyFinish({ attestationResponse: '{"id":"x"}', clientInformation: capable }, as(A, s)))).toMatchObject({ code: Code.FailedPrecondition, type: 'append_not_started' });
  });

  it('takes the oldest identifier when none is primary', async () => {
    const s = await signedIn(A, [['phone', '+4915100000001', 'verified'], ['email', 'oldest@example.com', 'verified']]);
    await me.appendPasskeyStart({ clientInformation: capable }, as(A, s));
    expect(ceremony.startAppends[0]!.username).toBe('+4915100000001');
  });

  it('answers passkeys_not_supported for a client without platform authenticator, without asking the ceremony', async () => {
    const s = await signedIn(A, [['email', 'noplatform@example.com', 'verified']]);
    const r = await me.appendPasskeyStart({ clientInformation: noPlatform }, as(A, s));
    expect(r).toMatchObject({ attestationOptions: '', appendNotAllowedReason: 'passkeys_not_supported' });
    expect(r.newClientEnvHandle).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(ceremony.startAppends).toHaveLength(0);
    expect(await rpcError(me.appendPasskeyFinish({ attestationResponse: '{}', clientInformation: noPlatform }, as(A, s)))).toMatchObject({ code: Code.FailedPrecondition, type: 'append_not_started' });
  });

  it('answers passkey_already_exists when the ceremony sees a passkey from this environment', async () => {
    const s = await signedIn(A, [['email', 'exists@example.com', 'verified']]);
    ceremony.tags = ['user-has-passkeys', 'env-has-passkey'];
    const r = await me.appendPasskeyStart({ clientInformation: capable }, as(A, s));
    expect(r).toMatchObject({ attestationOptions: '', appendNotAllowedReason: 'passkey_already_exists' });
    expect(await rpcError(me.appendPasskeyFinish({ attestationResponse: '{}', clientInformation: capable }, as(A, s)))).toMatchObject({ code: Code.FailedPrecondition, type: 'append_not_started' });
  });

  it('keeps the pending append when the ceremony refuses the response, and per session', async () => {
    const s = await signedIn(A, [['email', 'retry@example.com', 'verified']]);
    await me.appendPasskeyStart({ clientInformation: capable }, as(A, s));
    expect(await rpcError(me.appendPasskeyFinish({ attestationResponse: 'bad', clientInformation: capable }, as(A, s)))).toMatchObject({ code: Code.InvalidArgument, type: 'attestation_invalid' });
    // Another session of the same user has no pending append of its own.
    const { sessionId } = await startSession(env.deps, { projectId: A, userId: s.userId, withRefreshToken: false });
    expect(await rpcError(me.appendPasskeyFinish({ attestationResponse: '{}', clientInformation: capable }, as(A, { userId: s.userId, sessionId })))).toMatchObject({ code: Code.FailedPrecondition });
    await me.appendPasskeyFinish({ attestationResponse: '{"id":"y"}', clientInformation: capable }, as(A, s));
    expect(ceremony.finishAppends.map((f) => f.processId)).toEqual([ceremony.startAppends[0]!.processId, ceremony.startAppends[0]!.processId]);
  });
});

describe('F11: verify an identifier', () => {
  it('sends an email code, checks it and marks the identifier verified', async () => {
    const s = await signedIn(A, [['email', 'verify@example.com', 'pending']]);
    const id = s.identifiers['verify@example.com']!;
    await me.verifyIdentifierStart({ identifierId: id }, as(A, s, { [HEADERS.clientAddress]: '203.0.113.9' }));
    expect(challenges.created).toEqual([{ userId: s.userId, challengeType: 'email_otp', identifierValue: 'verify@example.com', challengeId: expect.stringMatching(/^cha-/), address: '203.0.113.9' }]);
    const wrong = await rpcError(me.verifyIdentifierFinish({ identifierId: id, code: '000000' }, as(A, s)));
    expect(wrong).toMatchObject({ code: Code.InvalidArgument, type: 'challenge_value_invalid', validation: ['value'] });
    expect((await me.getMe({}, as(A, s))).identifiers[0]!.status).toBe('pending');
    await me.verifyIdentifierFinish({ identifierId: id, code: CODE }, as(A, s));
    expect(challenges.verified.map((v) => v.challengeId)).toEqual([challenges.created[0]!.challengeId, challenges.created[0]!.challengeId]);
    expect((await me.getMe({}, as(A, s))).identifiers[0]!.status).toBe('verified');
    // Done: a second finish has nothing to finish, a second start nothing to verify.
    expect(await rpcError(me.verifyIdentifierFinish({ identifierId: id, code: CODE }, as(A, s)))).toMatchObject({ code: Code.FailedPrecondition, type: 'verification_not_started' });
    expect(await rpcError(me.verifyIdentifierStart({ identifierId: id }, as(A, s)))).toMatchObject({ code: Code.FailedPrecondition, type: 'identifier_already_verified' });
  });

  it('sends an SMS code for a phone number; the latest start counts', async () => {
    const s = await signedIn(A, [['phone', '+4915122222222', 'pending']]);
    const id = s.identifiers['+4915122222222']!;
    await me.verifyIdentifierStart({ identifierId: id }, as(A, s));
    await me.verifyIdentifierStart({ identifierId: id }, as(A, s));
    expect(challenges.created.map((c) => c.challengeType)).toEqual(['sms_otp', 'sms_otp']);
    await me.verifyIdentifierFinish({ identifierId: id, code: CODE }, as(A, s));
    expect(challenges.verified[0]!.challengeId).toBe(challenges.created[1]!.challengeId);
  });

  it('passes on the challenge service\'s "expired"', async () => {
    const s = await signedIn(A, [['email', 'late@example.com', 'pending']]);
    const id = s.identifiers['late@example.com']!;
    await me.verifyIdentifierStart({ identifierId: id }, as(A, s));
    challenges.expired.add(challenges.created[0]!.challengeId);
    expect(await rpcError(me.verifyIdentifierFinish({ identifierId: id, code: CODE }, as(A, s)))).toMatchObject({ code: Code.FailedPrecondition, type: 'challenge_expired' });
    expect((await me.getMe({}, as(A, s))).identifiers[0]!.status).toBe('pending');
  });

  it('refuses usernames (400), already verified identifiers (409), another user\'s (404) and finishes without start (409)', async () => {
    const s = await signedIn(A, [['username', 'hopper', 'pending'], ['email', 'hopper@example.com', 'primary'], ['email', 'hopper2@example.com', 'pending']]);
    const other = await signedIn(A, [['email', 'not-mine@example.com', 'pending']]);
    expect(await rpcError(me.verifyIdentifierStart({ identifierId: s.identifiers['hopper']! }, as(A, s)))).toMatchObject({ code: Code.InvalidArgument, type: 'validation_error', validation: ['identifierID'] });
    expect(await rpcError(me.verifyIdentifierStart({ identifierId: s.identifiers['hopper@example.com']! }, as(A, s)))).toMatchObject({ code: Code.FailedPrecondition, type: 'identifier_already_verified' });
    const foreign = other.identifiers['not-mine@example.com']!;
    expect(await rpcError(me.verifyIdentifierStart({ identifierId: foreign }, as(A, s)))).toMatchObject({ code: Code.NotFound, type: 'identifier_not_found' });
    expect(await rpcError(me.verifyIdentifierStart({ identifierId: 'ide-1' }, as(A, s)))).toMatchObject({ code: Code.NotFound, type: 'identifier_not_found' });
    // The owner started it; the other user cannot finish it.
    await me.verifyIdentifierStart({ identifierId: foreign }, as(A, other));
    expect(await rpcError(me.verifyIdentifierFinish({ identifierId: foreign, code: CODE }, as(A, s)))).toMatchObject({ code: Code.NotFound, type: 'identifier_not_found' });
    expect(await rpcError(me.verifyIdentifierFinish({ identifierId: s.identifiers['hopper2@example.com']!, code: CODE }, as(A, s)))).toMatchObject({ code: Code.FailedPrecondition, type: 'verification_not_started' });
    expect(challenges.created).toHaveLength(1);
    expect(await rpcError(me.verifyIdentifierStart({ identifierId: 'nope' }, as(A, s)))).toMatchObject({ code: Code.InvalidArgument, validation: ['identifierID'] });
  });
});

/** Moves the session's authentication time (sign-in) into the past, as if the user signed in that long ago. */
async function signedInAgo(s: Pick<Signed, 'sessionId'>, seconds: number): Promise<void> {
  await env.store.db.collection('sessions').updateOne({ _id: s.sessionId as never }, { $set: { authenticatedAt: new Date(Date.now() - seconds * 1000) } });
}

/** Call options as the gateway sends them for a refresh token (web-core's bearer on /v2/me/*). */
function withRefresh(projectId: string, s: Pick<Signed, 'refreshToken'>) {
  return { headers: { [HEADERS.projectId]: projectId, [HEADERS.tokenKind]: 'refresh', [HEADERS.refreshToken]: s.refreshToken } };
}

describe('sensitive actions need a recent sign-in (the project\'s window, default 15 minutes)', () => {
  it('refuses account delete, passkey append and identifier add/change 403 reauthentication_required, with either token, writing nothing', async () => {
    const s = await signedIn(A, [['email', 'stale@example.com', 'verified']]);
    // Start an append while recent, so the finish is refused for the window, not for a missing start.
    await me.appendPasskeyStart({ clientInformation: capable }, as(A, s));
    await signedInAgo(s, 16 * 60);
    ceremony.startAppends = [];
    for (const opts of [as(A, s), withRefresh(A, s)]) {
      for (const call of [
        me.deleteMe({}, opts),
        me.appendPasskeyStart({ clientInformation: capable }, opts),
        me.appendPasskeyFinish({ attestationResponse: '{"id":"x"}', clientInformation: capable }, opts),
        me.createMyIdentifier({ identifierType: 'email', value: 'attacker@example.com' }, opts),
        me.updateMyIdentifier({ identifierId: s.identifiers['stale@example.com']!, identifierType: 'email', value: 'attacker2@example.com' }, opts),
      ]) {
        expect(await rpcError(call)).toMatchObject({ code: Code.PermissionDenied, type: 'reauthentication_required' });
      }
    }
    expect(ceremony.startAppends).toHaveLength(0);
    expect(ceremony.finishAppends).toHaveLength(0);
    const after = await me.getMe({}, as(A, s));
    expect(after.identifiers.map((i) => i.value)).toEqual(['stale@example.com']);
    expect(await env.deps.users.find(A, s.userId)).not.toBeNull();
    // What is not sensitive keeps working with the same session.
    expect((await me.listMyPasskeys({}, withRefresh(A, s))).passkeys).toEqual([]);
    await me.updateMe({ fullName: 'Still Me' }, withRefresh(A, s));
  });

  it('allows them inside the window, and the window is the project\'s setting', async () => {
    const { project } = await createProject(env.deps, { name: 'Me window', rpId: 'localhost', origins: ['http://localhost:3000'] });
    await updateSessionSettings(env.deps, project._id, { reauthWindowSeconds: 3600 });
    const s = await signedIn(project._id, [['email', 'window@example.com', 'verified']]);
    await signedInAgo(s, 30 * 60);
    await me.createMyIdentifier({ identifierType: 'email', value: 'second@example.com' }, withRefresh(project._id, s));
    await signedInAgo(s, 61 * 60);
    expect(await rpcError(me.deleteMe({}, as(project._id, s)))).toMatchObject({ code: Code.PermissionDenied, type: 'reauthentication_required' });
    await signedInAgo(s, 59 * 60);
    await me.deleteMe({}, as(project._id, s));
    expect(await env.deps.users.find(project._id, s.userId)).toBeNull();
  });
});

describe('a passkey added through /v2/me', () => {
  it('is announced to the user\'s verified email address, not to an unproven one', async () => {
    const s = await signedIn(A, [['email', 'unproven@example.com', 'pending'], ['email', 'proven@example.com', 'verified']]);
    await me.appendPasskeyStart({ clientInformation: capable }, as(A, s));
    await me.appendPasskeyFinish({ attestationResponse: '{"id":"n"}', clientInformation: capable }, as(A, s));
    expect(challenges.notified).toEqual([{ userId: s.userId, email: 'proven@example.com', kind: 'passkey_added', passkeyName: 'Test Keychain', projectId: A }]);
  });

  it('sends no notice to a user without a verified email address (and the append still succeeds)', async () => {
    const s = await signedIn(A, [['email', 'only-pending@example.com', 'pending'], ['phone', '+4915100000077', 'verified']]);
    await me.appendPasskeyStart({ clientInformation: capable }, as(A, s));
    await me.appendPasskeyFinish({ attestationResponse: '{"id":"m"}', clientInformation: capable }, as(A, s));
    expect(ceremony.finishAppends).toHaveLength(1);
    expect(challenges.notified).toEqual([]);
  });
});
