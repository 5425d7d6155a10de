import { cose, decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';
import { invalidArgument } from '../../../runtime/errors.js';

/** Key type (and curve) each supported algorithm needs: RFC 9053 and RFC 8812. */
const KEY_SHAPES: Record<number, { kty: number; crv?: number }> = {
  [-7]: { kty: cose.COSEKTY.EC2, crv: cose.COSECRV.P256 },
  [-35]: { kty: cose.COSEKTY.EC2, crv: cose.COSECRV.P384 },
  [-36]: { kty: cose.COSEKTY.EC2, crv: cose.COSECRV.P521 },
  [-8]: { kty: cose.COSEKTY.OKP, crv: cose.COSECRV.ED25519 },
  [-257]: { kty: cose.COSEKTY.RSA },
  [-258]: { kty: cose.COSEKTY.RSA },
  [-259]: { kty: cose.COSEKTY.RSA },
  [-37]: { kty: cose.COSEKTY.RSA },
  [-38]: { kty: cose.COSEKTY.RSA },
  [-39]: { kty: cose.COSEKTY.RSA },
};

/**
 * Refuses a credential public key whose key type or curve does not fit its algorithm (kty RSA
 * with alg ES256, say): the attestation may still verify, but no login with it ever could, so it
 * must not be stored. Returns the algorithm.
 */
export function checkCoseKey(publicKey: Uint8Array): number {
  // Read as a plain CBOR map: the library's typed getters assume the key is of one shape already.
  const key = decodeCredentialPublicKey(new Uint8Array(publicKey)) as unknown as Map<number, unknown>;
  const alg = key.get(cose.COSEKEYS.alg);
  const kty = key.get(cose.COSEKEYS.kty);
  const crv = key.get(cose.COSEKEYS.crv);
  const shape = typeof alg === 'number' ? KEY_SHAPES[alg] : undefined;
  // Unknown algorithms are refused by the caller's algorithm check, with its own message.
  if (!shape) return typeof alg === 'number' ? alg : 0;
  if (kty !== shape.kty || (shape.crv !== undefined && crv !== shape.crv)) {
    throw invalidArgument(
      'public_key_mismatch',
      `the credential's public key (kty ${String(kty)}${crv !== undefined ? `, crv ${String(crv)}` : ''}) does not fit its algorithm ${alg} (kty ${shape.kty}${shape.crv !== undefined ? `, crv ${shape.crv}` : ''})`,
    );
  }
  return alg as number;
}
