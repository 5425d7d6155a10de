/**
 * The baseline the stack is compared with: the least a passkey server can do for the same
 * requests. Bare @simplewebauthn/server on node:http, everything in memory (Maps), one process, no
 * store, no RPCs, no insights, no events. It answers the bench's requests to the same paths with the
 * fields the driver reads (userID, attestationOptions, assertionOptions, challengeID, value, status,
 * and for the connect login token, session, signedPasskeyData), so the same driver code loads it.
 * The connect login (frontend API, no Authorization) does what the stack's does at the least: a
 * process per init with a conditional-UI challenge, the user found by an identifier, the assertion
 * verified, and two ES256 JWTs signed (session token, signedPasskeyData) with one in-memory key.
 * Run as a child process by startBaseline; prints "listening on <port>" once ready.
 *
 * Env: BASELINE_AUTHORIZATION (the exact Authorization header to accept), BASELINE_ORIGIN.
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type WebAuthnCredential,
} from '@simplewebauthn/server';
import { SignJWT, generateKeyPair } from 'jose';
import { randomBytes, randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const AUTHORIZATION = process.env.BASELINE_AUTHORIZATION ?? '';
const ORIGIN = process.env.BASELINE_ORIGIN ?? 'http://localhost:3000';
const RP_ID = new URL(ORIGIN).hostname;
const ALGORITHMS = [-7, -8, -257];

interface User {
  handle: Uint8Array<ArrayBuffer>;
  credentials: WebAuthnCredential[];
}
const users = new Map<string, User>();
const credentials = new Map<string, { userID: string; credential: WebAuthnCredential }>();
/** Open ceremonies by challenge; single use, like the stack's sessions. */
const ceremonies = new Map<string, { userID: string | null }>();
/** Identifier value → user, for the connect login. */
const identifiers = new Map<string, string>();
/** Connect login processes by their token. */
const processes = new Map<string, { userID: string | null }>();
const { privateKey: signingKey } = await generateKeyPair('ES256');
const otps = new Map<string, { userID: string; value: string; identifierValue: string; expires: number; status: 'pending' | 'completed' }>();

class Fail extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Same `prefix-<digits>` shape as the stack's IDs, so paths look alike. */
const id = (prefix: string) => `${prefix}-${randomBytes(8).readBigUInt64BE()}`;

function challengeOf(response: { response: { clientDataJSON: string } }): string {
  return JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')).challenge as string;
}

function takeCeremony(challenge: string): { userID: string | null } {
  const c = ceremonies.get(challenge);
  if (!c) throw new Fail(400, 'unknown or used challenge');
  ceremonies.delete(challenge);
  return c;
}

/** Verifies a login or mediation assertion against its single-use ceremony; the passkey used. */
async function verifyLogin(assertionResponse: string): Promise<{ userID: string; credential: WebAuthnCredential }> {
  const response = JSON.parse(assertionResponse);
  const challenge = challengeOf(response);
  const ceremony = takeCeremony(challenge);
  const stored = credentials.get(response.id);
  if (!stored) throw new Fail(404, 'credential not found');
  // Login names the user; mediation finds the user by the credential (its handle must match).
  if (ceremony.userID !== null && ceremony.userID !== stored.userID) throw new Fail(404, 'credential of another user');
  if (ceremony.userID === null && Buffer.compare(Buffer.from(response.response.userHandle ?? '', 'base64url'), users.get(stored.userID)!.handle) !== 0) throw new Fail(400, 'user handle mismatch');
  const result = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: ORIGIN,
    expectedRPID: RP_ID,
    credential: stored.credential,
    requireUserVerification: true,
  });
  if (!result.verified) throw new Fail(400, 'assertion does not verify');
  stored.credential.counter = result.authenticationInfo.newCounter;
  return stored;
}

async function route(method: string, path: string, body: any, processToken: string): Promise<unknown> {
  if (method === 'POST' && path === '/v2/users') {
    const userID = id('usr');
    users.set(userID, { handle: Uint8Array.from(randomBytes(32)), credentials: [] });
    return { userID, fullName: body.fullName, status: 'active' };
  }
  if (method === 'POST' && path === '/v2/passkey/append/start') {
    const user = users.get(body.userID);
    if (!user) throw new Fail(404, 'user not found');
    const options = await generateRegistrationOptions({
      rpName: 'baseline',
      rpID: RP_ID,
      userName: body.username,
      userID: user.handle,
      attestationType: 'none',
      supportedAlgorithmIDs: ALGORITHMS,
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      excludeCredentials: user.credentials.map((c) => ({ id: c.id })),
    });
    ceremonies.set(options.challenge, { userID: body.userID });
    return { appendAllow: true, attestationOptions: JSON.stringify({ publicKey: options }) };
  }
  if (method === 'POST' && path === '/v2/passkey/append/finish') {
    const response = JSON.parse(body.attestationResponse);
    const challenge = challengeOf(response);
    const ceremony = takeCeremony(challenge);
    const user = users.get(body.userID);
    if (!user || ceremony.userID !== body.userID) throw new Fail(400, 'ceremony of another user');
    const result = await verifyRegistrationResponse({ response, expectedChallenge: challenge, expectedOrigin: ORIGIN, expectedRPID: RP_ID, requireUserVerification: true });
    if (!result.verified) throw new Fail(400, 'attestation does not verify');
    const credential = result.registrationInfo.credential;
    if (credentials.has(credential.id)) throw new Fail(409, 'passkey exists');
    user.credentials.push(credential);
    credentials.set(credential.id, { userID: body.userID, credential });
    return { passkeyData: { id: credential.id, userID: body.userID, username: body.username ?? '' } };
  }
  if (method === 'POST' && (path === '/v2/passkey/login/start' || path === '/v2/passkey/mediation/start')) {
    const login = path === '/v2/passkey/login/start';
    const user = login ? users.get(body.userID) : undefined;
    if (login && !user) throw new Fail(404, 'user not found');
    const options = await generateAuthenticationOptions({
      rpID: RP_ID,
      userVerification: 'required',
      allowCredentials: user ? user.credentials.map((c) => ({ id: c.id, transports: c.transports })) : [],
    });
    ceremonies.set(options.challenge, { userID: login ? body.userID : null });
    return { loginAllow: true, assertionOptions: JSON.stringify({ publicKey: options }) };
  }
  if (method === 'POST' && (path === '/v2/passkey/login/finish' || path === '/v2/passkey/mediation/finish')) {
    const stored = await verifyLogin(body.assertionResponse);
    return { passkeyData: { id: stored.credential.id, userID: stored.userID } };
  }
  const identifierPath = /^\/v2\/users\/([^/]+)\/identifiers$/.exec(path);
  if (identifierPath && method === 'POST') {
    if (!users.has(identifierPath[1])) throw new Fail(404, 'user not found');
    const value = String(body.identifierValue).trim().toLowerCase();
    if (identifiers.has(value)) throw new Fail(409, 'identifier exists');
    identifiers.set(value, identifierPath[1]);
    return { identifierID: id('ide'), userID: identifierPath[1], type: body.identifierType, value, status: body.status ?? 'verified' };
  }
  if (method === 'POST' && path === '/v2/connect/login/init') {
    const token = id('cpr');
    processes.set(token, { userID: null });
    const options = await generateAuthenticationOptions({ rpID: RP_ID, userVerification: 'required', allowCredentials: [] });
    ceremonies.set(options.challenge, { userID: null });
    return { token, conditionalUIChallenge: JSON.stringify({ publicKey: options, mediation: 'conditional' }) };
  }
  if (method === 'POST' && path === '/v2/connect/login/start') {
    const process = processes.get(processToken);
    if (!process) throw new Fail(401, 'unknown process');
    const userID = identifiers.get(String(body.identifier).trim().toLowerCase());
    const user = userID ? users.get(userID) : undefined;
    if (!userID || !user) throw new Fail(404, 'user not found');
    process.userID = userID;
    const options = await generateAuthenticationOptions({ rpID: RP_ID, userVerification: 'required', allowCredentials: user.credentials.map((c) => ({ id: c.id, transports: c.transports })) });
    ceremonies.set(options.challenge, { userID });
    return { assertionOptions: JSON.stringify({ publicKey: options }) };
  }
  if (method === 'POST' && path === '/v2/connect/login/finish') {
    const process = processes.get(processToken);
    if (!process?.userID) throw new Fail(409, 'login not started');
    processes.delete(processToken);
    const stored = await verifyLogin(body.assertionResponse);
    const now = Math.floor(Date.now() / 1000);
    const sign = (claims: Record<string, unknown>, lifetime: number) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'baseline' }).setIssuer(ORIGIN).setAudience('baseline').setIssuedAt(now).setExpirationTime(now + lifetime).sign(signingKey);
    const session = await sign({ kind: 'session', sub: stored.userID, sid: id('ses') }, 900);
    const signedPasskeyData = await sign({ kind: 'passkey_data', sub: stored.userID, id: stored.credential.id, userID: stored.userID }, 300);
    return { session, signedPasskeyData };
  }
  const challengePath = /^\/v2\/users\/([^/]+)\/challenges(?:\/([^/]+))?$/.exec(path);
  if (challengePath && method === 'POST' && !challengePath[2]) {
    if (!users.has(challengePath[1])) throw new Fail(404, 'user not found');
    const challengeID = id('cha');
    const value = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const expires = Math.floor(Date.now() / 1000) + 300;
    otps.set(challengeID, { userID: challengePath[1], value, identifierValue: body.identifierValue, expires, status: 'pending' });
    return { challengeID, type: 'email_otp', identifierValue: body.identifierValue, value, expires, status: 'pending' };
  }
  if (challengePath && method === 'PATCH' && challengePath[2]) {
    const otp = otps.get(challengePath[2]);
    if (!otp || otp.userID !== challengePath[1]) throw new Fail(404, 'challenge not found');
    if (otp.status !== 'pending') throw new Fail(409, 'already completed');
    if (otp.value !== body.value) throw new Fail(400, 'wrong value');
    otp.status = 'completed';
    return { challengeID: challengePath[2], type: 'email_otp', identifierValue: otp.identifierValue, expires: otp.expires, status: 'completed' };
  }
  throw new Fail(404, `no route ${method} ${path}`);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const path = (req.url ?? '/').split('?')[0];
  // The frontend API (connect) has no Authorization: the page names the project, the process token the process.
  if (!path.startsWith('/v2/connect/') && req.headers.authorization !== AUTHORIZATION) return send(res, 401, { error: { type: 'invalid_credentials' } });
  try {
    const text = Buffer.concat(chunks).toString('utf8');
    const processToken = req.headers['x-corbado-process-id'];
    send(res, 200, await route(req.method ?? 'GET', path, text ? JSON.parse(text) : {}, typeof processToken === 'string' ? processToken : ''));
  } catch (err) {
    send(res, err instanceof Fail ? err.status : 400, { error: { details: (err as Error).message } });
  }
}

const server = createServer((req, res) => void handle(req, res));
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`listening on ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
