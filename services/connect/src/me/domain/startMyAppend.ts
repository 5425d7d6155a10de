/**
 * F3 (/v2/me/passkeys/append/start): attestation options for a new passkey of the signed-in user.
 *
 * The user asked for this passkey (a button on their profile page), so the ceremony's insights
 * may not talk them out of it (forcePasskeyAppend), with two exceptions the answer reports as
 * appendNotAllowedReason (200, an indicator, not an error):
 * - passkeys_not_supported: the client said it has no user-verifying platform authenticator, the
 *   same rule the connect append flow applies at init (decideFlowAllowed 'append'); the connect
 *   roll-out does not apply, it gates the connect UI, not the project's own signed-in users;
 * - passkey_already_exists: one of the user's passkeys was created in this client environment, so
 *   it already signs them in here (the ceremony's detection tag "env-has-passkey").
 * The registration is bound to a new process ID that is kept for F4 (store/meAppends.ts).
 */
import { newId } from '../../../../runtime/ids.js';
import type { IdentifierRecord } from '../../users/index.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';
import { decideFlowAllowed } from '../../connect-flows/index.js';
import { describeClient } from '../../shared/domain/flowCall.js';
import { resolveClientEnv } from '../../shared/domain/resolveClientEnv.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { signedInUser } from './signedInUser.js';

export type AppendNotAllowedReason = 'passkeys_not_supported' | 'passkey_already_exists';

export interface StartedMyAppend {
  /** `{"publicKey": …}`, or "" when appendNotAllowedReason is set. */
  attestationOptions: string;
  newClientEnvHandle?: string;
  appendNotAllowedReason?: AppendNotAllowedReason;
}

/** The ceremony's detection tag for "a passkey of this user was created in this client environment". */
export const ENV_HAS_PASSKEY_TAG = 'env-has-passkey';
/** The ceremony's registration session lives 5 minutes; the pointer to it may outlive it (the ceremony decides). */
const ME_APPEND_LIFETIME_MS = 10 * 60 * 1000;

export interface StartMyAppendInput {
  /** What the browser said about itself, and the client environment handle it holds, if any. */
  client: ClientSnapshot;
  clientEnvHandle: string | undefined;
}

export async function startMyAppend(deps: MeDeps, call: MeCall, input: StartMyAppendInput): Promise<StartedMyAppend> {
  const user = await signedInUser(deps, call, { recentProof: true });
  const client = input.client;
  const { env, issued } = await resolveClientEnv(deps, call.projectId, input.clientEnvHandle, client.visitorId);
  const handle = issued ? { newClientEnvHandle: env.handle } : {};

  if (!decideFlowAllowed('append', client, true)) return { attestationOptions: '', ...handle, appendNotAllowedReason: 'passkeys_not_supported' };

  const processId = newId('mep');
  const identifiers = await deps.identifiers.listForUser(call.projectId, user._id);
  const started = await deps.ceremony.startAppend(call, {
    userId: user._id,
    processId,
    username: usernameOf(identifiers, user.fullName, user._id),
    client: describeClient({ client, clientEnvHandle: env.handle }, call),
    forcePasskeyAppend: true,
    situation: 'default',
  });
  if (started.detectionTags.some((t) => t.category === 'passkey' && t.name === ENV_HAS_PASSKEY_TAG)) {
    return { attestationOptions: '', ...handle, appendNotAllowedReason: 'passkey_already_exists' };
  }

  const now = deps.now();
  await deps.meAppends.put({
    _id: call.sessionId,
    projectId: call.projectId,
    userId: user._id,
    processId,
    clientEnvHandle: env.handle,
    client,
    createdAt: now,
    expiresAt: new Date(now.getTime() + ME_APPEND_LIFETIME_MS),
  });
  return { attestationOptions: started.attestationOptions, ...handle };
}

/**
 * The name the authenticator shows for the passkey: the primary identifier, else the oldest one;
 * a user without identifiers (created through the backend API) by their name or ID.
 */
function usernameOf(identifiers: IdentifierRecord[], fullName: string | undefined, userId: string): string {
  const chosen = identifiers.find((i) => i.status === 'primary') ?? identifiers[0];
  return chosen?.value ?? (fullName?.trim().slice(0, 256) || userId);
}
