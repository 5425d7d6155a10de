import { decodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import {
  badResponse,
  checkExtensionResults,
  readAttachment,
  readAuthenticatorData,
  readBase64Url,
  readClientData,
  readCredentialId,
  readResponseObject,
  readTransports,
  parseCredentialJson,
  type AuthenticatorDataFacts,
  type ClientData,
} from './responseFields.js';

/** A registration response whose every field has the right type, encoding and structure. */
export interface ParsedAttestation {
  /** The document as received, for the signature and attestation checks. */
  json: RegistrationResponseJSON;
  credentialId: string;
  clientData: ClientData;
  authData: AuthenticatorDataFacts & Required<Pick<AuthenticatorDataFacts, 'aaguid' | 'credentialId' | 'credentialPublicKey'>>;
  /** Attestation statement format ("none", "packed", …). */
  fmt: string;
  transports: string[];
  attachment: 'platform' | 'cross-platform' | null;
}

const FIELD = 'attestationResponse';

/**
 * Parses B3's attestationResponse (the JSON of navigator.credentials.create()'s result). Checks
 * structure only; whether it answers our challenge, origin, RP and policy is verified later.
 */
export function parseAttestationResponse(raw: string): ParsedAttestation {
  const obj = parseCredentialJson(FIELD, raw);
  const credentialId = readCredentialId(FIELD, obj);
  const attachment = readAttachment(FIELD, obj);
  checkExtensionResults(FIELD, obj);
  const response = readResponseObject(FIELD, obj);
  const clientData = readClientData(FIELD, response);
  const attestationObject = readBase64Url(FIELD, response, 'attestationObject', 'response.attestationObject');
  const transports = readTransports(FIELD, response);

  let decoded: CBORType;
  try {
    // Strict: the bytes must be exactly one CBOR item. simplewebauthn's decodeAttestationObject
    // reads only a first item and cuts a byte string that runs past the end of the input, so a
    // truncated attestationObject ("none", whose authData nothing signs) would be accepted and its
    // cut-off credential public key stored. (A copy: the decoder reads the whole underlying buffer.)
    decoded = decodeCBOR(new Uint8Array(attestationObject));
  } catch (err) {
    throw badResponse(FIELD, 'response.attestationObject is not valid CBOR', err);
  }
  // A CBOR value of another shape (not a map, or without the three members) is as bad as no CBOR.
  if (!(decoded instanceof Map)) throw badResponse(FIELD, 'response.attestationObject must be a CBOR map');
  const fmt: unknown = decoded.get('fmt');
  const authDataBytes: unknown = decoded.get('authData');
  const attStmt: unknown = decoded.get('attStmt');
  if (typeof fmt !== 'string' || fmt === '') throw badResponse(FIELD, 'response.attestationObject.fmt must be a text string');
  if (!(authDataBytes instanceof Uint8Array)) throw badResponse(FIELD, 'response.attestationObject.authData must be a byte string');
  if (!(attStmt instanceof Map)) throw badResponse(FIELD, 'response.attestationObject.attStmt must be a map');

  const authData = readAuthenticatorData(FIELD, authDataBytes, 'response.attestationObject.authData');
  if (!authData.aaguid || !authData.credentialId || !authData.credentialPublicKey) {
    throw badResponse(FIELD, 'response.attestationObject.authData holds no attested credential data');
  }
  // The stored credential ID comes from the signed authenticator data; the unsigned id must agree.
  if (authData.credentialId !== credentialId) throw badResponse(FIELD, 'id does not match the credential ID in the authenticator data');

  return {
    // id and rawId are not signed: hand the verifier their canonical form (it compares them as strings).
    json: { ...obj, id: credentialId, rawId: credentialId } as unknown as RegistrationResponseJSON,
    credentialId,
    clientData,
    authData: { ...authData, aaguid: authData.aaguid, credentialId: authData.credentialId, credentialPublicKey: authData.credentialPublicKey },
    fmt,
    transports,
    attachment,
  };
}
