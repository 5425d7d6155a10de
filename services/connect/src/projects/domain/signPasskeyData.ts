import type { JWTPayload } from 'jose';
import type { PasskeyData } from '../../shared/domain/passkeyCeremonies.js';
import { pickVouchedUsername, type UserDeps } from '../../users/index.js';
import type { ProjectDeps } from './projectDeps.js';
import { signToken } from './signToken.js';

/** signedPasskeyData lives at most five minutes: long enough to reach the app's backend, not to be hoarded. */
export const MAX_PASSKEY_DATA_LIFETIME_SECONDS = 300;

/**
 * Signs passkeyData as an ES256 JWT with the project's key, for the application's backend to
 * verify offline against the JWKS. Claims: `kind: "passkey_data"`, `sub` = userID, `iss` = the
 * project's frontend URL, `aud` = the project ID, `iat`, `exp`, and the passkeyData fields `id`,
 * `userID`, `username`, `challengeID`, `ceremonyType` and `aaguidDetails` `{aaguid, name}` (icons
 * are left out: they are large data URIs and say nothing the AAGUID does not). `username` is only
 * ever a value the application vouched for or the user proved (pickVouchedUsername.ts), else "".
 */
export async function signPasskeyData(
  deps: Pick<ProjectDeps, 'projects' | 'masterKey' | 'now'> & Pick<UserDeps, 'users' | 'identifiers'>,
  projectId: string,
  data: PasskeyData,
  expiresInSeconds: number,
): Promise<string> {
  const lifetime = Math.min(Math.max(1, Math.floor(expiresInSeconds)), MAX_PASSKEY_DATA_LIFETIME_SECONDS);
  const username = await pickVouchedUsername(deps, projectId, data.userId, data.username);
  return signToken(deps, projectId, passkeyDataClaims(data, username), { expiresIn: lifetime });
}

/**
 * The claims of signedPasskeyData (see above), `username` already chosen (pickVouchedUsername.ts).
 * One builder for both signers: this RPC (B5/B7 of the backend API) and the connect login, which
 * signs with the project, user and identifiers it has read already (connect-flows/domain/finishLogin.ts).
 */
export function passkeyDataClaims(data: PasskeyData, username: string): JWTPayload {
  return {
    kind: 'passkey_data',
    sub: data.userId,
    id: data.id,
    userID: data.userId,
    username,
    challengeID: data.challengeId,
    ceremonyType: data.ceremonyType,
    aaguidDetails: { aaguid: data.aaguidDetails?.aaguid ?? '', name: data.aaguidDetails?.name ?? '' },
  };
}
