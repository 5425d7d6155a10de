/** GET /v2/me/passkeys: every passkey of the signed-in user, oldest first, as the connect manage list shows them. */
import { allPasskeys, managedPasskeyOf, type ManagedPasskey } from '../../connect-flows/index.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { signedInUser } from './signedInUser.js';

export async function listMyPasskeys(deps: MeDeps, call: MeCall): Promise<ManagedPasskey[]> {
  const user = await signedInUser(deps, call);
  const credentials = await allPasskeys(deps, call, user._id);
  return credentials.map(managedPasskeyOf);
}
