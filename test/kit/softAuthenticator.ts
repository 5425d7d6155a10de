/**
 * A software WebAuthn authenticator (plus the browser's part: clientDataJSON and the JSON
 * encoding of PublicKeyCredential) on node:crypto, for tests. It makes real registrations
 * (attestation "none" or "packed" self-attestation) and assertions for ES256, RS256 and EdDSA, and
 * lets a test control every input the service checks: challenge, origin, RP ID, flags (UP, UV, BE,
 * BS), the signature counter, the user handle, the attachment and the transports.
 */
import { decodeCBOR, encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

export type SoftAlgorithm = 'ES256' | 'RS256' | 'EdDSA';
export const COSE_ALGORITHM: Record<SoftAlgorithm, number> = { ES256: -7, RS256: -257, EdDSA: -8 };

export interface Flags {
  up?: boolean;
  uv?: boolean;
  be?: boolean;
  bs?: boolean;
}

export interface SoftCredential {
  id: string;
  algorithm: SoftAlgorithm;
  privateKey: KeyObject;
  cosePublicKey: Uint8Array;
  counter: number;
  /** base64url, as the options' user.id. */
  userHandle: string;
  rpId: string;
}

export interface SoftAuthenticatorOptions {
  /** 8-4-4-4-12; default all zero (as with attestation "none"). */
  aaguid?: string;
  attachment?: 'platform' | 'cross-platform' | null;
  transports?: string[];
  /** How much the counter grows per assertion; 0 models authenticators without a counter (synced passkeys). */
  counterStep?: number;
  flags?: Flags;
}

export interface CreateInput {
  challenge: string;
  rpId: string;
  origin: string;
  userHandle: string;
  algorithm?: SoftAlgorithm;
  fmt?: 'none' | 'packed';
  flags?: Flags;
  counter?: number;
  clientDataType?: string;
  /** Reuse a credential ID (re-registration). */
  credentialId?: string;
  /** Integer fields of the COSE public key to overwrite (e.g. {1: 3}: kty RSA on an EC key). */
  coseKeyFields?: Record<number, number>;
}

export interface GetInput {
  credential: SoftCredential;
  challenge: string;
  origin: string;
  /** Default: the credential's RP ID. */
  rpId?: string;
  flags?: Flags;
  /** Default: the credential's counter plus counterStep. */
  counter?: number;
  /** Default: the credential's user handle; null sends none. */
  userHandle?: string | null;
  clientDataType?: string;
  /** Flip a bit of the signature. */
  tamperSignature?: boolean;
}

const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

export class SoftAuthenticator {
  readonly credentials = new Map<string, SoftCredential>();
  constructor(readonly options: SoftAuthenticatorOptions = {}) {}

  /** navigator.credentials.create() answered with the options of B2 (attestationOptions). */
  createFromOptions(attestationOptions: string, origin: string, over: Partial<CreateInput> = {}) {
    const { publicKey } = JSON.parse(attestationOptions) as { publicKey: { challenge: string; rp: { id: string }; user: { id: string } } };
    return this.create({ challenge: publicKey.challenge, rpId: publicKey.rp.id, origin, userHandle: publicKey.user.id, ...over });
  }

  /** navigator.credentials.get() answered with the options of B4/B6 (assertionOptions). */
  getFromOptions(assertionOptions: string, credential: SoftCredential, origin: string, over: Partial<GetInput> = {}) {
    const { publicKey } = JSON.parse(assertionOptions) as { publicKey: { challenge: string; rpId: string } };
    return this.get({ credential, challenge: publicKey.challenge, rpId: publicKey.rpId, origin, ...over });
  }

  create(input: CreateInput): { json: Record<string, unknown>; credential: SoftCredential } {
    const algorithm = input.algorithm ?? 'ES256';
    const generated = newKey(algorithm);
    const privateKey = generated.privateKey;
    const cosePublicKey = input.coseKeyFields ? overwriteCoseFields(generated.cosePublicKey, input.coseKeyFields) : generated.cosePublicKey;
    const id = input.credentialId ?? b64u(randomBytes(32));
    const credential: SoftCredential = { id, algorithm, privateKey, cosePublicKey, counter: input.counter ?? 0, userHandle: input.userHandle, rpId: input.rpId };
    const idBytes = Buffer.from(id, 'base64url');
    const attested = Buffer.concat([aaguidBytes(this.options.aaguid), u16(idBytes.length), idBytes, cosePublicKey]);
    const authData = authenticatorData(input.rpId, { ...this.options.flags, ...input.flags }, credential.counter, attested);
    const clientDataJSON = clientData(input.clientDataType ?? 'webauthn.create', input.challenge, input.origin);
    const attStmt = new Map<string | number, CBORType>();
    if (input.fmt === 'packed') {
      // Self attestation: signed by the credential's own key, no certificate chain.
      attStmt.set('alg', COSE_ALGORITHM[algorithm]);
      attStmt.set('sig', signWith(algorithm, privateKey, Buffer.concat([authData, sha256(clientDataJSON)])));
    }
    const attestationObject = encodeCBOR(
      new Map<string | number, CBORType>([
        ['fmt', input.fmt ?? 'none'],
        ['attStmt', attStmt],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    this.credentials.set(id, credential);
    const transports = this.options.transports ?? ['hybrid', 'internal'];
    return {
      credential,
      json: {
        id,
        rawId: id,
        type: 'public-key',
        authenticatorAttachment: this.options.attachment === undefined ? 'platform' : this.options.attachment,
        response: {
          clientDataJSON: b64u(clientDataJSON),
          attestationObject: b64u(attestationObject),
          transports,
          publicKeyAlgorithm: COSE_ALGORITHM[algorithm],
          authenticatorData: b64u(authData),
        },
        clientExtensionResults: { credProps: { rk: true } },
      },
    };
  }

  get(input: GetInput): Record<string, unknown> {
    const { credential } = input;
    const counter = input.counter ?? credential.counter + (this.options.counterStep ?? 1);
    credential.counter = counter;
    const authData = authenticatorData(input.rpId ?? credential.rpId, { ...this.options.flags, ...input.flags }, counter);
    const clientDataJSON = clientData(input.clientDataType ?? 'webauthn.get', input.challenge, input.origin);
    const signature = signWith(credential.algorithm, credential.privateKey, Buffer.concat([authData, sha256(clientDataJSON)]));
    if (input.tamperSignature) signature[signature.length - 1] ^= 0x01;
    const userHandle = input.userHandle === undefined ? credential.userHandle : input.userHandle;
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      authenticatorAttachment: this.options.attachment === undefined ? 'platform' : this.options.attachment,
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        userHandle,
      },
      clientExtensionResults: {},
    };
  }
}

function overwriteCoseFields(key: Uint8Array, fields: Record<number, number>): Uint8Array {
  const map = decodeCBOR(key) as Map<string | number, CBORType>;
  for (const [k, v] of Object.entries(fields)) map.set(Number(k), v);
  return encodeCBOR(map);
}

function newKey(algorithm: SoftAlgorithm): { privateKey: KeyObject; cosePublicKey: Uint8Array } {
  if (algorithm === 'ES256') {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    // kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y
    const cose = new Map<number, CBORType>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
    ]);
    return { privateKey, cosePublicKey: encodeCBOR(cose as Map<string | number, CBORType>) };
  }
  if (algorithm === 'RS256') {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = publicKey.export({ format: 'jwk' });
    // kty RSA (3), alg RS256 (-257), n, e
    const cose = new Map<number, CBORType>([
      [1, 3],
      [3, -257],
      [-1, new Uint8Array(Buffer.from(jwk.n!, 'base64url'))],
      [-2, new Uint8Array(Buffer.from(jwk.e!, 'base64url'))],
    ]);
    return { privateKey, cosePublicKey: encodeCBOR(cose as Map<string | number, CBORType>) };
  }
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  // kty OKP (1), alg EdDSA (-8), crv Ed25519 (6), x
  const cose = new Map<number, CBORType>([
    [1, 1],
    [3, -8],
    [-1, 6],
    [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
  ]);
  return { privateKey, cosePublicKey: encodeCBOR(cose as Map<string | number, CBORType>) };
}

function signWith(algorithm: SoftAlgorithm, key: KeyObject, data: Buffer): Buffer {
  // ECDSA signatures in WebAuthn are DER-encoded, which is node's default; RSA uses PKCS#1 v1.5.
  return sign(algorithm === 'EdDSA' ? null : 'sha256', data, key);
}

function authenticatorData(rpId: string, flags: Flags, counter: number, attested?: Buffer): Buffer {
  let f = 0;
  if (flags.up ?? true) f |= 0x01;
  if (flags.uv ?? true) f |= 0x04;
  if (flags.be ?? false) f |= 0x08;
  if (flags.bs ?? false) f |= 0x10;
  if (attested) f |= 0x40;
  const c = Buffer.alloc(4);
  c.writeUInt32BE(counter);
  return Buffer.concat([sha256(rpId), Buffer.from([f]), c, ...(attested ? [attested] : [])]);
}

function clientData(type: string, challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

function aaguidBytes(aaguid = '00000000-0000-0000-0000-000000000000'): Buffer {
  return Buffer.from(aaguid.replace(/-/g, ''), 'hex');
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}
