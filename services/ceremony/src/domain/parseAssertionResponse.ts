import type { AuthenticationResponseJSON } from '@simplewebauthn/server';
import {
  badResponse,
  canonicalId,
  checkExtensionResults,
  readAttachment,
  readAuthenticatorData,
  readBase64Url,
  readClientData,
  readCredentialId,
  readResponseObject,
  parseCredentialJson,
  type AuthenticatorDataFacts,
  type ClientData,
} from './responseFields.js';

/** An authentication response whose every field has the right type, encoding and structure. */
export interface ParsedAssertion {
  /** The document as received, for the signature check. */
  json: AuthenticationResponseJSON;
  credentialId: string;
  clientData: ClientData;
  authData: AuthenticatorDataFacts;
  /** The user handle the authenticator returned (base64url), or null when it sent none. */
  userHandle: string | null;
  attachment: 'platform' | 'cross-platform' | null;
}

const FIELD = 'assertionResponse';

/**
 * Parses the assertionResponse of B5/B7 (the JSON of navigator.credentials.get()'s result).
 * Checks structure only; the signature, challenge, origin and RP are verified later.
 */
export function parseAssertionResponse(raw: string): ParsedAssertion {
  const obj = parseCredentialJson(FIELD, raw);
  const credentialId = readCredentialId(FIELD, obj);
  const attachment = readAttachment(FIELD, obj);
  checkExtensionResults(FIELD, obj);
  const response = readResponseObject(FIELD, obj);
  const clientData = readClientData(FIELD, response);
  const authDataBytes = readBase64Url(FIELD, response, 'authenticatorData', 'response.authenticatorData');
  readBase64Url(FIELD, response, 'signature', 'response.signature');
  let userHandle: string | null = null;
  // Browsers send null (or leave it out) when the authenticator returned no user handle.
  if (response.userHandle !== undefined && response.userHandle !== null) {
    const bytes = readBase64Url(FIELD, response, 'userHandle', 'response.userHandle', 0);
    userHandle = bytes.length ? canonicalId(bytes) : null;
  }
  const authData = readAuthenticatorData(FIELD, authDataBytes, 'response.authenticatorData');
  if (authData.credentialId) throw badResponse(FIELD, 'response.authenticatorData must not hold attested credential data in an assertion');
  // id and rawId are not signed: hand the verifier their canonical form (it compares them as strings).
  const json = { ...obj, id: credentialId, rawId: credentialId } as unknown as AuthenticationResponseJSON;
  return { json, credentialId, clientData, authData, userHandle, attachment };
}
