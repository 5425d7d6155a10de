/**
 * Real authenticator responses, captured by others from real devices and published in the
 * `fido2-helpers` fixture package, through B3 (FinishAppend) and B5 (FinishLogin) of the
 * CeremonyService, on MongoDB, exactly as the soft-authenticator tests run them. The soft
 * authenticator (test/kit/softAuthenticator.ts) only makes "none" and "packed" self-attestations with our own
 * code; these fixtures carry what real devices send: fido-u2f (Yubico, HyperSecu), packed with a
 * Feitian x5c chain, tpm (Windows Hello) and android-safetynet, plus two captured assertions.
 *
 * Each fixture answers a challenge another server issued years ago, for its origin and RP ID: the
 * tests add projects with that RP ID and origin, open the ceremony with B2/B4 and make its session
 * hold the fixture's challenge (read from the fixture's clientDataJSON), then send the captured bytes.
 *
 * Fixtures for android-key and apple attestation are not in fido2-helpers (nor in any package
 * reachable here), so those formats are not covered by captured data.
 */
import { Code } from '@connectrpc/connect';
import { decodeAttestationObject } from '@simplewebauthn/server/helpers';
import { encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import { Binary } from 'mongodb';
import { createPublicKey, X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DomainError } from '../../runtime/errors.js';
import { newId } from '../../runtime/ids.js';
import { finishAppend } from '../src/domain/finishAppend.js';
import { parseAssertionResponse } from '../src/domain/parseAssertionResponse.js';
import { parseAttestationResponse } from '../src/domain/parseAttestationResponse.js';
import type { CredentialRecord } from '../src/store/credentials.js';
import type { SessionRecord, SessionStore } from '../src/store/sessions.js';
import { finishAppendRequest, startAppend, startLogin } from './flows.js';
import { PROJECTS } from '../../../test/kit/fakeConnect.js';
import { as, clientInformation, failure, startTestEnv, type TestEnv } from './support.js';

// ---------------------------------------------------------------------------------------------
// The fixtures (CommonJS, untyped): ArrayBuffers as a browser's PublicKeyCredential holds them.

interface AttestationFixture {
  rawId: ArrayBuffer;
  response: { attestationObject: ArrayBuffer; clientDataJSON: ArrayBuffer };
}
interface AssertionFixture {
  rawId: ArrayBuffer;
  response: { clientDataJSON: ArrayBuffer; authenticatorData: ArrayBuffer; signature: ArrayBuffer; userHandle: string };
}
interface Fido2HelpersLib {
  makeCredentialAttestationNoneResponse: AttestationFixture;
  makeCredentialAttestationU2fResponse: AttestationFixture;
  makeCredentialAttestationHypersecuU2fResponse: AttestationFixture;
  makeCredentialAttestationPackedResponse: AttestationFixture;
  makeCredentialAttestationTpmResponse: AttestationFixture;
  makeCredentialAttestationSafetyNetResponse: AttestationFixture;
  assertionResponse: AssertionFixture;
  assertionResponseWindowsHello: AssertionFixture;
  /** SPKI PEM of the key that signed assertionResponse. */
  assnPublicKey: string;
  assnPublicKeyWindowsHello: string;
}
const loadCommonJs = createRequire(import.meta.url);
const { lib } = loadCommonJs('fido2-helpers') as { lib: Fido2HelpersLib };

/**
 * A copy of fixture bytes. Buffer.from(arrayBuffer) would share the fixture's memory, and a test
 * that flips a byte would corrupt the fixture for every later test.
 */
const bytesOf = (ab: ArrayBuffer) => Buffer.from(new Uint8Array(ab));
const b64u = (bytes: ArrayBuffer | Uint8Array) => Buffer.from(bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes).toString('base64url');
const clientDataOf = (fx: { response: { clientDataJSON: ArrayBuffer } }) =>
  JSON.parse(bytesOf(fx.response.clientDataJSON).toString('utf8')) as { type?: string; challenge: string; origin: string };

/** The JSON of navigator.credentials.create()'s result (what B3's attestationResponse carries). */
function registrationJson(fx: AttestationFixture, over: { clientDataJSON?: Buffer; attestationObject?: Buffer } = {}) {
  const id = b64u(fx.rawId);
  return {
    type: 'public-key',
    id,
    rawId: id,
    response: {
      clientDataJSON: b64u(over.clientDataJSON ?? bytesOf(fx.response.clientDataJSON)),
      attestationObject: b64u(over.attestationObject ?? bytesOf(fx.response.attestationObject)),
    },
    clientExtensionResults: {},
  };
}

/** The JSON of navigator.credentials.get()'s result (what B5's assertionResponse carries). */
function assertionJson(fx: AssertionFixture, over: { clientDataJSON?: Buffer; signature?: Buffer } = {}) {
  const id = b64u(fx.rawId);
  return {
    type: 'public-key',
    id,
    rawId: id,
    response: {
      clientDataJSON: b64u(over.clientDataJSON ?? bytesOf(fx.response.clientDataJSON)),
      authenticatorData: b64u(fx.response.authenticatorData),
      signature: b64u(over.signature ?? bytesOf(fx.response.signature)),
      // Already base64url in the fixture; "" (no user handle) in assertionResponse.
      userHandle: fx.response.userHandle,
    },
    clientExtensionResults: {},
  };
}

/** The fixture's clientDataJSON with some members replaced (re-serialized: the signatures no longer cover it). */
function clientDataWith(fx: { response: { clientDataJSON: ArrayBuffer } }, patch: Record<string, unknown>): Buffer {
  return Buffer.from(JSON.stringify({ ...clientDataOf(fx), ...patch }));
}

/** The attestation statement's certificates (x5c), leaf first. */
function x5cOf(fx: AttestationFixture): X509Certificate[] {
  const attStmt = decodeAttestationObject(new Uint8Array(bytesOf(fx.response.attestationObject))).get('attStmt');
  return (attStmt.get('x5c') ?? []).map((der) => new X509Certificate(Buffer.from(der)));
}

/** When every certificate of the fixture's x5c is within its validity period. */
function certificateWindow(fx: AttestationFixture): { from: Date; to: Date } {
  const certs = x5cOf(fx);
  if (!certs.length) throw new Error('the fixture has no x5c');
  return {
    from: new Date(Math.max(...certs.map((c) => Date.parse(c.validFrom)))),
    to: new Date(Math.min(...certs.map((c) => Date.parse(c.validTo)))),
  };
}

/**
 * Runs `fn` with only `Date` pinned to `at` (vi.useFakeTimers with toFake ['Date']), which is what
 * simplewebauthn reads for certificate dates. Timers stay real, so the MongoDB driver and connect
 * run as usual; the service's own clock (env.clock, deps.now) is not Date-based, so sessions and
 * stored times keep the test clock's time. The embedded server's TTL sweep does read Date.now():
 * a pin into the past only makes fewer documents look expired, but a pin into the future could
 * sweep the test's session away, so the one test that pins forward keeps MongoDB out.
 */
async function withDate<T>(at: Date, fn: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ now: at, toFake: ['Date'] });
  try {
    return await fn();
  } finally {
    vi.useRealTimers();
  }
}

/**
 * Runs `fn` now if the fixture's certificates are valid now; otherwise with Date pinned a day
 * before the first of them expires. simplewebauthn checks the dates of the attestation
 * certificate for packed and tpm (and of whole chains when trust anchors are configured): these
 * captures are from 2018, so their chains expire one after the other (the TPM leaf on
 * 2028-05-20) and a test on real data must not turn red only because the calendar moved on.
 * At the time of writing (2026) every chain verified with the real clock, no pinning was needed.
 */
async function atCertificateTime<T>(fx: AttestationFixture, fn: () => Promise<T>): Promise<T> {
  const { from, to } = certificateWindow(fx);
  const now = Date.now();
  if (now >= from.getTime() && now <= to.getTime()) return fn();
  return withDate(new Date(to.getTime() - 86_400_000), fn);
}

/** COSE_Key of an SPKI PEM public key (EC2 P-256 → ES256, RSA → RS256), as authenticator data would carry it. */
function coseKeyOf(pem: string): { cose: Uint8Array; alg: number } {
  const jwk = createPublicKey(pem).export({ format: 'jwk' });
  const bytes = (v: string | undefined) => new Uint8Array(Buffer.from(v!, 'base64url'));
  const entries: Array<[number, CBORType]> =
    jwk.kty === 'EC'
      ? [[1, 2], [3, -7], [-1, 1], [-2, bytes(jwk.x)], [-3, bytes(jwk.y)]]
      : [[1, 3], [3, -257], [-1, bytes(jwk.n)], [-2, bytes(jwk.e)]];
  return { cose: encodeCBOR(new Map<string | number, CBORType>(entries)), alg: entries[1][1] as number };
}

// ---------------------------------------------------------------------------------------------
// Projects the captured responses belong to: their RP IDs and origins. Neither RP asked for user
// verification in these captures (most have UV unset), so the projects only prefer it.

const LOCALHOST = 'pro-3';
const WEBAUTHN_ORG = 'pro-4';
PROJECTS[LOCALHOST] = { projectId: LOCALHOST, rpId: 'localhost', rpName: 'Localhost', origins: ['https://localhost:8443'], userVerification: 'preferred', frontendApiUrl: 'https://pro-3.auth.example.com' };
PROJECTS[WEBAUTHN_ORG] = { projectId: WEBAUTHN_ORG, rpId: 'webauthn.org', rpName: 'WebAuthn.org', origins: ['https://webauthn.org'], userVerification: 'preferred', frontendApiUrl: 'https://pro-4.auth.example.com' };

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
  env.connect.users.set(`${LOCALHOST}/usr-1`, {});
  env.connect.users.set(`${WEBAUTHN_ORG}/usr-1`, {});
});
afterAll(async () => {
  await env?.close();
});
beforeEach(async () => {
  await Promise.all(['credentials', 'ceremony_sessions', 'webauthn_users'].map((c) => env.store.db.collection(c).deleteMany({})));
  env.insights.events.length = 0;
});
afterEach(() => {
  vi.useRealTimers();
});

type Doc = { _id: string } & Record<string, unknown>;
const credentials = () => env.store.db.collection<Doc>('credentials');
const sessions = () => env.store.db.collection<Doc>('ceremony_sessions');

/** B2 for usr-1/proc-1, with the session made to hold the fixture's challenge. */
async function openAppend(projectId: string, challenge: string): Promise<void> {
  const start = await startAppend(env.client, { projectId });
  const issued = (JSON.parse(start.attestationOptions) as { publicKey: { challenge: string } }).publicKey.challenge;
  expect((await sessions().updateOne({ projectId, challenge: issued }, { $set: { challenge } })).modifiedCount).toBe(1);
}

/** B4 for usr-1/proc-2, with the session made to hold the fixture's challenge. */
async function openLogin(projectId: string, challenge: string): Promise<void> {
  const start = await startLogin(env.client, { projectId });
  const issued = (JSON.parse(start.assertionOptions) as { publicKey: { challenge: string } }).publicKey.challenge;
  expect((await sessions().updateOne({ projectId, challenge: issued }, { $set: { challenge } })).modifiedCount).toBe(1);
}

const finishAppendCall = (projectId: string, json: unknown) => env.client.finishAppend(finishAppendRequest({}, JSON.stringify(json)), as(projectId));

const finishLoginCall = (projectId: string, json: unknown) =>
  env.client.finishLogin({ userId: 'usr-1', processId: 'proc-2', assertionResponse: JSON.stringify(json), trackingId: 'trk-2', clientInformation: clientInformation() }, as(projectId));

/** A passkey of usr-1 as B3 would have stored it, holding the captured assertion's public key. */
async function storePasskey(projectId: string, fx: AssertionFixture, pem: string, counter = 0): Promise<CredentialRecord> {
  const { cose, alg } = coseKeyOf(pem);
  const now = env.clock.now();
  const record: CredentialRecord = {
    _id: newId('cre'),
    projectId,
    userId: 'usr-1',
    username: 'ada@example.com',
    credentialId: b64u(fx.rawId),
    publicKey: cose,
    algorithm: alg,
    counter,
    transports: [],
    aaguid: '00000000-0000-0000-0000-000000000000',
    backupEligible: false,
    backupState: false,
    attestationFormat: 'none',
    createdAt: now,
    lastUsedAt: now,
    clientEnvKey: 'env-handle-1',
    sourceOS: 'macOS',
    sourceBrowser: 'Chrome',
    status: 'active',
    notificationRequested: false,
  };
  expect(await env.deps.credentials.insert(record)).toBe('inserted');
  return record;
}

// ---------------------------------------------------------------------------------------------

interface RegistrationCase {
  fmt: string;
  device: string;
  fixture: AttestationFixture;
  projectId: string;
  aaguid: string;
  aaguidName: string;
  alg: number;
  counter: number;
  uv: boolean;
  /** simplewebauthn checks the dates of this format's attestation certificate (packed, tpm). */
  datedCertificate?: true;
}

const ZERO_AAGUID = '00000000-0000-0000-0000-000000000000';
const REGISTRATIONS: RegistrationCase[] = [
  { fmt: 'none', device: 'a captured registration without attestation', fixture: lib.makeCredentialAttestationNoneResponse, projectId: LOCALHOST, aaguid: ZERO_AAGUID, aaguidName: 'Passkey', alg: -7, counter: 0, uv: false },
  { fmt: 'fido-u2f', device: 'Yubico U2F key', fixture: lib.makeCredentialAttestationU2fResponse, projectId: LOCALHOST, aaguid: ZERO_AAGUID, aaguidName: 'Passkey', alg: -7, counter: 0, uv: false },
  // The HyperSecu key's attestation certificate (FT FIDO 0100) expired on 2024-08-14, and the
  // registration still verifies: simplewebauthn checks fido-u2f certificate dates only as part of
  // chain validation against trust anchors for the format, and there are none (the service asks for
  // attestation "none" and keeps no trust list: ceremonyRules.ATTESTATION). No clock pinning.
  { fmt: 'fido-u2f', device: 'HyperSecu U2F key (expired attestation certificate)', fixture: lib.makeCredentialAttestationHypersecuU2fResponse, projectId: WEBAUTHN_ORG, aaguid: ZERO_AAGUID, aaguidName: 'Passkey', alg: -7, counter: 0, uv: false },
  // Full attestation: Feitian BioPass leaf, CA-1 intermediate and root in x5c (valid until 2033).
  // The AAGUID is the ASCII of "B82ED73C8FB4E5A2", which no AAGUID list names.
  { fmt: 'packed', device: 'Feitian BioPass FIDO2 (x5c chain)', fixture: lib.makeCredentialAttestationPackedResponse, projectId: WEBAUTHN_ORG, aaguid: '42383245-4437-3343-3846-423445354132', aaguidName: 'Unknown authenticator', alg: -7, counter: 1, uv: false, datedCertificate: true },
  // Windows Hello with a TPM 2.0: RSA credential key, AIK certificate from Microsoft's TPM CA (leaf valid until 2028-05-20).
  { fmt: 'tpm', device: 'Windows Hello (TPM 2.0)', fixture: lib.makeCredentialAttestationTpmResponse, projectId: WEBAUTHN_ORG, aaguid: '08987058-cadc-4b81-b6e1-30de50dcbe96', aaguidName: 'Windows Hello', alg: -257, counter: 0, uv: true, datedCertificate: true },
];

describe('captured registrations through FinishAppend (B3)', () => {
  it.each(REGISTRATIONS)('$fmt: $device verifies and is stored', async (c) => {
    const { challenge, origin } = clientDataOf(c.fixture);
    expect(PROJECTS[c.projectId].origins).toEqual([origin]);
    await openAppend(c.projectId, challenge);

    const finish = () => finishAppendCall(c.projectId, registrationJson(c.fixture));
    const finished = c.datedCertificate ? await atCertificateTime(c.fixture, finish) : await finish();

    const data = finished.passkeyData!;
    expect(data.userId).toBe('usr-1');
    expect(data.username).toBe('ada@example.com');
    expect(data.challengeId).toMatch(/^pch-[0-9]{20}$/);
    // No transports nor attachment in these old captures.
    expect(data.ceremonyType).toBe('local');
    expect(data.aaguidDetails).toMatchObject({ aaguid: c.aaguid, name: c.aaguidName });

    const docs = await credentials().find({}).toArray();
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({
      _id: data.id,
      projectId: c.projectId,
      userId: 'usr-1',
      credentialId: b64u(c.fixture.rawId),
      attestationFormat: c.fmt,
      aaguid: c.aaguid,
      algorithm: c.alg,
      counter: c.counter,
      transports: [],
      backupEligible: false,
      backupState: false,
      status: 'active',
    });
    // The stored public key is the COSE key of the signed authenticator data, byte for byte.
    const authData = decodeAttestationObject(new Uint8Array(bytesOf(c.fixture.response.attestationObject))).get('authData');
    const stored = Buffer.from((docs[0].publicKey as Binary).buffer);
    expect(Buffer.from(authData).subarray(-stored.length).equals(stored)).toBe(true);
    expect(await sessions().countDocuments({ status: 'pending' })).toBe(0);
    expect(env.insights.eventTypes()).toEqual(['append-started', 'append-succeeded']);
  });

  it.each(REGISTRATIONS)('$fmt: $device parses to the facts B3 stores', (c) => {
    const parsed = parseAttestationResponse(JSON.stringify(registrationJson(c.fixture)));
    expect(parsed.fmt).toBe(c.fmt);
    expect(parsed.credentialId).toBe(b64u(c.fixture.rawId));
    expect(parsed.authData.aaguid).toBe(c.aaguid);
    expect(parsed.authData.flags).toMatchObject({ up: true, uv: c.uv });
    expect(parsed.clientData.type).toBe('webauthn.create');
    expect(parsed.attachment).toBeNull();
    expect(parsed.transports).toEqual([]);
  });

  it('fido-u2f: the HyperSecu attestation certificate expired in 2024 and is accepted with the real clock all the same', async () => {
    // See the HyperSecu case above: no trust anchors for fido-u2f, so its dates are not checked.
    const fx = lib.makeCredentialAttestationHypersecuU2fResponse;
    const { to } = certificateWindow(fx);
    expect(to.toISOString()).toBe('2024-08-14T18:29:32.000Z');
    expect(Date.now()).toBeGreaterThan(to.getTime());
    await openAppend(WEBAUTHN_ORG, clientDataOf(fx).challenge);
    const finished = await finishAppendCall(WEBAUTHN_ORG, registrationJson(fx));
    expect(await credentials().findOne({ _id: finished.passkeyData!.id })).toMatchObject({ attestationFormat: 'fido-u2f' });
  });

  it('tpm: once the AIK certificate has expired the same response is a clean InvalidArgument attestation_invalid', async () => {
    const fx = lib.makeCredentialAttestationTpmResponse;
    const { to } = certificateWindow(fx);
    const { challenge } = clientDataOf(fx);
    // Runs the domain function B3 calls with an in-memory session, so nothing touches MongoDB while
    // Date is pinned past the certificates (the embedded server's TTL sweep reads Date too, and a
    // sweep in 2029 would remove the test's sessions).
    const session: SessionRecord = {
      _id: newId('pch'),
      projectId: WEBAUTHN_ORG,
      operation: 'append',
      userId: 'usr-1',
      username: 'ada@example.com',
      processId: 'proc-1',
      challenge,
      rpId: 'webauthn.org',
      userVerification: 'preferred',
      situation: 'default',
      createdAt: env.clock.now(),
      expiresAt: new Date(env.clock.now().getTime() + 300_000),
    };
    const oneSession: SessionStore = {
      insert: async () => undefined,
      consume: async (scope) => (scope.challenge === session.challenge ? session : null),
      discardExpired: async () => false,
      findByChallenge: async (_projectId, challenge) => (challenge === session.challenge ? session : null),
      deleteForUser: async () => 0,
      pageForUser: async () => ({ items: [], total: 0 }),
      markConsumed: async () => null,
      find: async () => null,
    };
    const client = { remoteAddress: '::1', userAgent: 'test', uvpaAvailable: true, conditionalMediationAvailable: true, capabilities: {} };
    const err = await withDate(new Date(to.getTime() + 86_400_000), () =>
      finishAppend({ ...env.deps, sessions: oneSession }, { projectId: WEBAUTHN_ORG, userId: 'usr-1', processId: 'proc-1', attestationResponse: JSON.stringify(registrationJson(fx)), client, sendNotification: false }).then(
        () => {
          throw new Error('expected the expired attestation to be refused');
        },
        (e: unknown) => e,
      ),
    );
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'invalid_argument', type: 'attestation_invalid' });
    // Only the date: simplewebauthn's own words about the leaf certificate.
    expect(String(((err as DomainError).cause as Error).message)).toMatch(/^Certificate not good after .* \(TPM\)$/);
    expect(env.insights.events.at(-1)).toMatchObject({ type: 'append-failed', reason: 'attestation_invalid' });
  });

  it('android-safetynet: the capture predates WebAuthn Level 1 and is refused as malformed (InvalidArgument validation_error)', async () => {
    // This capture cannot verify under any current verifier, for reasons of the data, not of ours:
    //  - its clientDataJSON has no "type" and an origin without scheme ({"challenge","origin":
    //    "webauthn.org","hashAlg"}, a pre-Recommendation draft), and the UP flag is not set;
    //  - clientDataJSON is bound by the SafetyNet nonce (SHA-256 of authData and its hash), so it
    //    cannot be repaired without breaking the attestation;
    //  - the JWS says ctsProfileMatch false (simplewebauthn enforces the CTS check by default), its
    //    timestampMs is 2018-06-13 (simplewebauthn accepts only the last 60 s), its chain ends at
    //    GlobalSign Root CA - R2 (expired 2021-12-15; simplewebauthn's default anchor is GlobalSign
    //    Root CA R1), and Google has shut the SafetyNet Attestation API down.
    // Our parser rejects it first, at the missing type: a 400 on attestationResponse, never a 500.
    const fx = lib.makeCredentialAttestationSafetyNetResponse;
    const { challenge } = clientDataOf(fx);
    await openAppend(WEBAUTHN_ORG, challenge);

    const f = await failure(finishAppendCall(WEBAUTHN_ORG, registrationJson(fx)));
    expect(f.code).toBe(Code.InvalidArgument);
    expect(f.type).toBe('validation_error');
    expect(f.fields).toEqual(['attestationResponse']);
    expect(f.error.rawMessage).toBe('attestationResponse: response.clientDataJSON.type must be a non-empty string');
    // Refused before the session is looked at: the ceremony is still open, nothing stored.
    expect(await sessions().countDocuments({ challenge })).toBe(1);
    expect(await credentials().countDocuments({})).toBe(0);

    expect(() => parseAttestationResponse(JSON.stringify(registrationJson(fx)))).toThrow(
      expect.objectContaining({ kind: 'invalid_argument', type: 'validation_error', message: 'attestationResponse: response.clientDataJSON.type must be a non-empty string' }),
    );
  });
});

describe('captured registrations, tampered', () => {
  const none = lib.makeCredentialAttestationNoneResponse;
  const packed = lib.makeCredentialAttestationPackedResponse;

  it('another origin in clientDataJSON is InvalidArgument origin_mismatch, and uses up the ceremony', async () => {
    const { challenge } = clientDataOf(none);
    await openAppend(LOCALHOST, challenge);
    const json = registrationJson(none, { clientDataJSON: clientDataWith(none, { origin: 'https://evil.example' }) });
    const f = await failure(finishAppendCall(LOCALHOST, json));
    expect(f.code).toBe(Code.InvalidArgument);
    expect(f.type).toBe('origin_mismatch');
    expect(await sessions().countDocuments({ status: 'pending' })).toBe(0);
    expect(await credentials().countDocuments({})).toBe(0);
    expect(env.insights.events.at(-1)).toMatchObject({ type: 'append-failed', reason: 'origin_mismatch' });
  });

  it('another challenge in clientDataJSON finds no ceremony: FailedPrecondition challenge_not_found_or_used', async () => {
    const { challenge } = clientDataOf(packed);
    await openAppend(WEBAUTHN_ORG, challenge);
    const altered = Buffer.from(challenge, 'base64url');
    altered[0] ^= 0x01;
    const json = registrationJson(packed, { clientDataJSON: clientDataWith(packed, { challenge: altered.toString('base64url') }) });
    const f = await failure(finishAppendCall(WEBAUTHN_ORG, json));
    expect(f.code).toBe(Code.FailedPrecondition);
    expect(f.type).toBe('challenge_not_found_or_used');
    // The real ceremony is untouched.
    expect(await sessions().countDocuments({ challenge })).toBe(1);
    expect(await credentials().countDocuments({})).toBe(0);
  });

  it.each([
    ['packed', lib.makeCredentialAttestationPackedResponse, WEBAUTHN_ORG],
    ['fido-u2f', lib.makeCredentialAttestationU2fResponse, LOCALHOST],
  ] as const)('%s: a flipped byte of the attestation signature is InvalidArgument attestation_invalid', async (_fmt, fx, projectId) => {
    const raw = bytesOf(fx.response.attestationObject);
    const sig = Buffer.from(decodeAttestationObject(new Uint8Array(raw)).get('attStmt').get('sig')!);
    const at = raw.indexOf(sig);
    expect(at).toBeGreaterThan(0);
    const tampered = Buffer.from(raw);
    // The last byte of the DER signature's s: still a well-formed ECDSA signature, just a wrong one.
    tampered[at + sig.length - 1] ^= 0x01;
    await openAppend(projectId, clientDataOf(fx).challenge);
    const f = await failure(finishAppendCall(projectId, registrationJson(fx, { attestationObject: tampered })));
    expect(f.code).toBe(Code.InvalidArgument);
    expect(f.type).toBe('attestation_invalid');
    expect(await credentials().countDocuments({})).toBe(0);
  });

  // The attestationObject ends with authData, which ends with the credential public key: cutting
  // a byte or two off the end used to leave CBOR that simplewebauthn's decoder accepted (it cuts
  // a byte string short instead of failing), and for "none", where nothing signs authData, the
  // service verified the response and stored a public key with a 31-byte y coordinate (fixed in
  // parseAttestationResponse: the attestationObject is decoded strictly now).
  it.each([
    ['none', 'cut by one byte', lib.makeCredentialAttestationNoneResponse, LOCALHOST, (b: Buffer) => b.subarray(0, b.length - 1)],
    ['none', 'cut by two bytes', lib.makeCredentialAttestationNoneResponse, LOCALHOST, (b: Buffer) => b.subarray(0, b.length - 2)],
    ['none', 'with a trailing byte', lib.makeCredentialAttestationNoneResponse, LOCALHOST, (b: Buffer) => Buffer.concat([b, Buffer.from([0])])],
    ['packed', 'cut halfway', lib.makeCredentialAttestationPackedResponse, WEBAUTHN_ORG, (b: Buffer) => b.subarray(0, b.length >> 1)],
    ['packed', 'cut by one byte', lib.makeCredentialAttestationPackedResponse, WEBAUTHN_ORG, (b: Buffer) => b.subarray(0, b.length - 1)],
    ['tpm', 'cut by one byte', lib.makeCredentialAttestationTpmResponse, WEBAUTHN_ORG, (b: Buffer) => b.subarray(0, b.length - 1)],
  ] as const)('%s: an attestationObject %s is not CBOR: InvalidArgument validation_error, nothing consumed or stored', async (_fmt, _how, fx, projectId, cut) => {
    const { challenge } = clientDataOf(fx);
    await openAppend(projectId, challenge);
    const json = registrationJson(fx, { attestationObject: cut(bytesOf(fx.response.attestationObject)) });
    const f = await failure(finishAppendCall(projectId, json));
    expect(f.code).toBe(Code.InvalidArgument);
    expect(f.type).toBe('validation_error');
    expect(f.fields).toEqual(['attestationResponse']);
    expect(f.error.rawMessage).toBe('attestationResponse: response.attestationObject is not valid CBOR');
    expect(await sessions().countDocuments({ challenge })).toBe(1);
    expect(await credentials().countDocuments({})).toBe(0);
  });

  it('the same captured registration replayed is FailedPrecondition challenge_not_found_or_used', async () => {
    await openAppend(LOCALHOST, clientDataOf(none).challenge);
    await finishAppendCall(LOCALHOST, registrationJson(none));
    const replay = await failure(finishAppendCall(LOCALHOST, registrationJson(none)));
    expect(replay.type).toBe('challenge_not_found_or_used');
    expect(await credentials().countDocuments({})).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------

interface AssertionCase {
  device: string;
  fixture: AssertionFixture;
  pem: string;
  projectId: string;
  alg: number;
  counter: number;
  userHandle: string | null;
  uv: boolean;
}

const ASSERTIONS: AssertionCase[] = [
  // ES256 (P-256), counter 363, no user handle ("").
  { device: 'a captured ES256 assertion', fixture: lib.assertionResponse, pem: lib.assnPublicKey, projectId: LOCALHOST, alg: -7, counter: 363, userHandle: null, uv: false },
  // Windows Hello: RS256, user verified, user handle "ak".
  { device: 'Windows Hello (RS256)', fixture: lib.assertionResponseWindowsHello, pem: lib.assnPublicKeyWindowsHello, projectId: WEBAUTHN_ORG, alg: -257, counter: 1, userHandle: 'ak', uv: true },
];

/** The user's WebAuthn user handle, as B2 would have stored it when the passkey was created. */
async function storeUserHandle(projectId: string, handle: string): Promise<void> {
  await env.deps.webauthnUsers.ensure(projectId, 'usr-1', new Uint8Array(Buffer.from(handle, 'utf8')), env.clock.now());
}

describe('captured assertions through FinishLogin (B5)', () => {
  it.each(ASSERTIONS)('$device verifies with its public key and saves the counter', async (c) => {
    const passkey = await storePasskey(c.projectId, c.fixture, c.pem);
    expect(passkey.algorithm).toBe(c.alg);
    if (c.userHandle !== null) await storeUserHandle(c.projectId, c.userHandle);
    const { challenge, origin } = clientDataOf(c.fixture);
    expect(PROJECTS[c.projectId].origins).toEqual([origin]);
    await openLogin(c.projectId, challenge);

    const r = await finishLoginCall(c.projectId, assertionJson(c.fixture));
    expect(r.passkeyData).toMatchObject({ id: passkey._id, userId: 'usr-1', username: 'ada@example.com' });
    expect(await credentials().findOne({ _id: passkey._id })).toMatchObject({ counter: c.counter, lastUsedAt: env.clock.now() });
    expect(await sessions().countDocuments({ status: 'pending' })).toBe(0);
    expect(env.insights.eventTypes().at(-1)).toBe('login-succeeded');
  });

  it.each(ASSERTIONS)('$device parses to the facts B5 checks', (c) => {
    const parsed = parseAssertionResponse(JSON.stringify(assertionJson(c.fixture)));
    expect(parsed.credentialId).toBe(b64u(c.fixture.rawId));
    expect(parsed.userHandle).toBe(c.userHandle === null ? null : b64u(Buffer.from(c.userHandle)));
    expect(parsed.authData).toMatchObject({ counter: c.counter, flags: { up: true, uv: c.uv } });
    expect(parsed.clientData.type).toBe('webauthn.get');
  });

  describe('tampered', () => {
    const fx = lib.assertionResponse;
    beforeEach(async () => {
      await storePasskey(LOCALHOST, fx, lib.assnPublicKey);
      await openLogin(LOCALHOST, clientDataOf(fx).challenge);
    });

    it('another origin in clientDataJSON is InvalidArgument origin_mismatch', async () => {
      const f = await failure(finishLoginCall(LOCALHOST, assertionJson(fx, { clientDataJSON: clientDataWith(fx, { origin: 'https://evil.example' }) })));
      expect(f.code).toBe(Code.InvalidArgument);
      expect(f.type).toBe('origin_mismatch');
    });

    it('another challenge in clientDataJSON finds no ceremony: FailedPrecondition challenge_not_found_or_used', async () => {
      const altered = Buffer.from(clientDataOf(fx).challenge, 'base64url');
      altered[altered.length - 1] ^= 0x01;
      const f = await failure(finishLoginCall(LOCALHOST, assertionJson(fx, { clientDataJSON: clientDataWith(fx, { challenge: altered.toString('base64url') }) })));
      expect(f.code).toBe(Code.FailedPrecondition);
      expect(f.type).toBe('challenge_not_found_or_used');
      expect(await sessions().countDocuments({ challenge: clientDataOf(fx).challenge })).toBe(1);
    });

    it('a flipped byte of the signature is InvalidArgument signature_invalid, and nothing is saved', async () => {
      const signature = bytesOf(fx.response.signature);
      // The last byte of the DER signature's s: still well-formed, just wrong.
      signature[signature.length - 1] ^= 0x01;
      const f = await failure(finishLoginCall(LOCALHOST, assertionJson(fx, { signature })));
      expect(f.code).toBe(Code.InvalidArgument);
      expect(f.type).toBe('signature_invalid');
      expect(await credentials().findOne({ credentialId: b64u(fx.rawId) })).toMatchObject({ counter: 0 });
      expect(env.insights.events.at(-1)).toMatchObject({ type: 'login-failed', reason: 'signature_invalid' });
    });

    it("a genuine signature checked with another passkey's key (Windows Hello's RSA key) is signature_invalid", async () => {
      await credentials().updateOne({ credentialId: b64u(fx.rawId) }, { $set: { publicKey: new Binary(coseKeyOf(lib.assnPublicKeyWindowsHello).cose), algorithm: -257 } });
      // The login start reads the passkeys it allows (and the finish verifies with what it read):
      // start again so this one sees the other key.
      await sessions().deleteMany({ projectId: LOCALHOST });
      await openLogin(LOCALHOST, clientDataOf(fx).challenge);
      const f = await failure(finishLoginCall(LOCALHOST, assertionJson(fx)));
      expect(f.code).toBe(Code.InvalidArgument);
      expect(f.type).toBe('signature_invalid');
    });

    it('the captured counter (363) at or below the stored one is FailedPrecondition counter_regression', async () => {
      await credentials().updateOne({ credentialId: b64u(fx.rawId) }, { $set: { counter: 363 } });
      const f = await failure(finishLoginCall(LOCALHOST, assertionJson(fx)));
      expect(f.code).toBe(Code.FailedPrecondition);
      expect(f.type).toBe('counter_regression');
      expect(env.insights.eventTypes()).toContain('clone-detected');
    });
  });

  it("Windows Hello: a user handle that is not the user's is InvalidArgument user_handle_mismatch", async () => {
    const fx = lib.assertionResponseWindowsHello;
    await storePasskey(WEBAUTHN_ORG, fx, lib.assnPublicKeyWindowsHello);
    await storeUserHandle(WEBAUTHN_ORG, 'someone-else');
    await openLogin(WEBAUTHN_ORG, clientDataOf(fx).challenge);
    const f = await failure(finishLoginCall(WEBAUTHN_ORG, assertionJson(fx)));
    expect(f.code).toBe(Code.InvalidArgument);
    expect(f.type).toBe('user_handle_mismatch');
  });
});
