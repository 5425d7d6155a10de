/**
 * Readers for the JSON of a PublicKeyCredential (attestationResponse, assertionResponse): every
 * field is checked for type and encoding before any WebAuthn library sees it, so malformed input
 * is a 400 (validation_error on the request field) and never an internal error.
 */
import { decodeCredentialPublicKey, parseAuthenticatorData } from '@simplewebauthn/server/helpers';
import { DomainError } from '../../../runtime/errors.js';
import { KNOWN_TRANSPORTS } from './ceremonyRules.js';

export type ResponseField = 'attestationResponse' | 'assertionResponse';

/** The fields of clientDataJSON the ceremonies check. */
export interface ClientData {
  type: string;
  challenge: string;
  origin: string;
  crossOrigin?: boolean;
  topOrigin?: string;
}

export interface AuthenticatorFlags {
  up: boolean;
  uv: boolean;
  be: boolean;
  bs: boolean;
}

export interface AuthenticatorDataFacts {
  rpIdHash: Uint8Array;
  flags: AuthenticatorFlags;
  counter: number;
  /** Present in registrations (attested credential data). */
  aaguid?: string;
  credentialId?: string;
  credentialPublicKey?: Uint8Array<ArrayBuffer>;
}

export function badResponse(field: ResponseField, message: string, cause?: unknown): DomainError {
  return new DomainError('invalid_argument', 'validation_error', `${field}: ${message}`, [{ field, message }], cause === undefined ? undefined : { cause });
}

/** base64url as WebAuthn's JSON encodes it; padding is tolerated (some clients add it). */
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** The credential's JSON document as an object. */
export function parseCredentialJson(field: ResponseField, raw: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw badResponse(field, 'is not JSON', err);
  }
  if (!isObject(parsed)) throw badResponse(field, 'must be a JSON object (a PublicKeyCredential)');
  return parsed;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function readString(field: ResponseField, obj: Record<string, unknown>, key: string, path = key): string {
  const v = obj[key];
  if (typeof v !== 'string') throw badResponse(field, `${path} must be a string`);
  return v;
}

/** Decodes a base64url string field; `minBytes` rejects empty values where bytes are required. */
export function readBase64Url(field: ResponseField, obj: Record<string, unknown>, key: string, path: string, minBytes = 1): Uint8Array<ArrayBuffer> {
  const v = readString(field, obj, key, path);
  const unpadded = v.replace(/=+$/, '');
  // A length of 4n+1 characters cannot come from any byte string.
  if (!BASE64URL.test(v) || unpadded.length % 4 === 1) throw badResponse(field, `${path} is not base64url`);
  const bytes = new Uint8Array(Buffer.from(unpadded, 'base64url'));
  if (bytes.length < minBytes) throw badResponse(field, `${path} is empty`);
  return bytes;
}

/** The credential ID in its canonical form: base64url without padding. */
export function canonicalId(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** id, rawId (the same bytes) and type "public-key"; returns the canonical credential ID. */
export function readCredentialId(field: ResponseField, obj: Record<string, unknown>): string {
  const id = readBase64Url(field, obj, 'id', 'id');
  const rawId = readBase64Url(field, obj, 'rawId', 'rawId');
  if (canonicalId(id) !== canonicalId(rawId)) throw badResponse(field, 'id and rawId must encode the same credential ID');
  if (obj.type !== 'public-key') throw badResponse(field, `type must be "public-key", got ${JSON.stringify(obj.type)}`);
  return canonicalId(id);
}

/** authenticatorAttachment: "platform", "cross-platform", or absent/null (unknown). */
export function readAttachment(field: ResponseField, obj: Record<string, unknown>): 'platform' | 'cross-platform' | null {
  const v = obj.authenticatorAttachment;
  if (v === undefined || v === null) return null;
  if (v === 'platform' || v === 'cross-platform') return v;
  throw badResponse(field, `authenticatorAttachment must be "platform", "cross-platform" or null, got ${JSON.stringify(v)}`);
}

/** clientExtensionResults must be an object if present (the browser always sends one). */
export function checkExtensionResults(field: ResponseField, obj: Record<string, unknown>): void {
  const v = obj.clientExtensionResults;
  if (v !== undefined && !isObject(v)) throw badResponse(field, 'clientExtensionResults must be an object');
}

export function readResponseObject(field: ResponseField, obj: Record<string, unknown>): Record<string, unknown> {
  const v = obj.response;
  if (!isObject(v)) throw badResponse(field, 'response must be an object');
  return v;
}

/** Decodes clientDataJSON: base64url of UTF-8 JSON with string type, challenge and origin. */
export function readClientData(field: ResponseField, response: Record<string, unknown>): ClientData {
  const bytes = readBase64Url(field, response, 'clientDataJSON', 'response.clientDataJSON');
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    throw badResponse(field, 'response.clientDataJSON is not UTF-8 JSON', err);
  }
  if (!isObject(data)) throw badResponse(field, 'response.clientDataJSON must hold a JSON object');
  for (const key of ['type', 'challenge', 'origin']) {
    if (typeof data[key] !== 'string' || data[key] === '') throw badResponse(field, `response.clientDataJSON.${key} must be a non-empty string`);
  }
  if (data.crossOrigin !== undefined && typeof data.crossOrigin !== 'boolean') throw badResponse(field, 'response.clientDataJSON.crossOrigin must be a boolean');
  if (data.topOrigin !== undefined && typeof data.topOrigin !== 'string') throw badResponse(field, 'response.clientDataJSON.topOrigin must be a string');
  return {
    type: data.type as string,
    challenge: data.challenge as string,
    origin: data.origin as string,
    ...(data.crossOrigin !== undefined ? { crossOrigin: data.crossOrigin as boolean } : {}),
    ...(data.topOrigin !== undefined ? { topOrigin: data.topOrigin as string } : {}),
  };
}

/** Parses authenticator data (and, in registrations, the attested credential's public key). */
export function readAuthenticatorData(field: ResponseField, bytes: Uint8Array, path: string): AuthenticatorDataFacts {
  let parsed: ReturnType<typeof parseAuthenticatorData>;
  try {
    // The parser may patch a byte of a known-bad EdDSA key encoding in place: give it a copy.
    parsed = parseAuthenticatorData(new Uint8Array(bytes));
  } catch (err) {
    throw badResponse(field, `${path} is not valid authenticator data`, err);
  }
  const facts: AuthenticatorDataFacts = {
    rpIdHash: parsed.rpIdHash,
    flags: { up: parsed.flags.up, uv: parsed.flags.uv, be: parsed.flags.be, bs: parsed.flags.bs },
    counter: parsed.counter,
  };
  if (parsed.aaguid && parsed.credentialID && parsed.credentialPublicKey) {
    let problem: string | null;
    try {
      problem = coseKeyProblem(decodeCredentialPublicKey(parsed.credentialPublicKey));
    } catch (err) {
      throw badResponse(field, `${path} holds a credential public key that is not valid COSE`, err);
    }
    if (problem) throw badResponse(field, `${path} holds a credential public key that is not usable: ${problem}`);
    facts.aaguid = formatAaguid(parsed.aaguid);
    facts.credentialId = canonicalId(parsed.credentialID);
    facts.credentialPublicKey = new Uint8Array(parsed.credentialPublicKey);
  }
  return facts;
}

function formatAaguid(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** response.transports: an array of strings if present; only the spec's transports are kept. */
export function readTransports(field: ResponseField, response: Record<string, unknown>): string[] {
  const v = response.transports;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((t) => typeof t !== 'string')) throw badResponse(field, 'response.transports must be an array of strings');
  return [...new Set((v as string[]).filter((t) => KNOWN_TRANSPORTS.includes(t)))].sort();
}

/** Key parameter sizes by COSE curve: EC2 P-256/384/521 coordinates, OKP Ed25519/Ed448 keys. */
const EC2_COORDINATE_BYTES: Record<number, number> = { 1: 32, 2: 48, 3: 66 };
const OKP_KEY_BYTES: Record<number, number> = { 6: 32, 7: 57 };

/**
 * Why a decoded COSE key cannot be a real public key, or null. The CBOR decoder shortens a byte
 * string that runs past the end of its input instead of failing, so a truncated "none" attestation
 * (which nothing signs) would otherwise store a key that can never verify a login.
 */
export function coseKeyProblem(key: { get(label: number): unknown }): string | null {
  const bytes = (label: number): number => {
    const v = key.get(label);
    return v instanceof Uint8Array ? v.length : -1;
  };
  const kty = key.get(1);
  const crv = key.get(-1);
  if (kty === 2) {
    const size = typeof crv === 'number' ? EC2_COORDINATE_BYTES[crv] : undefined;
    if (!size) return `unsupported EC2 curve ${String(crv)}`;
    if (bytes(-2) !== size || bytes(-3) !== size) return `EC2 coordinates must be ${size} bytes each`;
    return null;
  }
  if (kty === 1) {
    const size = typeof crv === 'number' ? OKP_KEY_BYTES[crv] : undefined;
    if (!size) return `unsupported OKP curve ${String(crv)}`;
    if (bytes(-2) !== size) return `OKP key must be ${size} bytes`;
    return null;
  }
  if (kty === 3) {
    const modulus = bytes(-1);
    const exponent = bytes(-2);
    if (modulus < 256 || modulus > 1024) return 'RSA modulus must be 2048 to 8192 bits';
    if (exponent < 1 || exponent > 8) return 'RSA exponent is missing or too long';
    return null;
  }
  return `unsupported key type ${String(kty)}`;
}
