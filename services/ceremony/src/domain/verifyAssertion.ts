import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import { DomainError, failedPrecondition, invalidArgument, notFound } from '../../../runtime/errors.js';
import type { CredentialRecord } from '../store/credentials.js';
import type { SessionRecord } from '../store/sessions.js';
import { cloneDetectedEvent } from './buildPasskeyEvents.js';
import { checkCeremonyData } from './checkCeremonyData.js';
import type { CeremonyDomainDeps } from './deps.js';
import type { ClientContext } from './insights/types.js';
import type { ParsedAssertion } from './parseAssertionResponse.js';
import { recordEvent } from './recordEvent.js';

/** What verifying needs of the stored passkey: a stored record, or what a login start saw of it. */
export type VerifiableCredential = Pick<CredentialRecord, '_id' | 'projectId' | 'userId' | 'credentialId' | 'publicKey' | 'counter' | 'userHandle' | 'cloneDetectedAt'>;

export interface VerifyAssertionInput {
  /** The application's tracking ID of this attempt, kept with the events. */
  trackingId?: string;
  parsed: ParsedAssertion;
  credential: VerifiableCredential;
  session: SessionRecord;
  origins: readonly string[];
  /** The project's clone detection policy: under "block" a flagged passkey never logs in. */
  cloneDetection: 'block' | 'record';
  processId: string;
  client: ClientContext;
}

/**
 * Verifies an assertion (B5, B7) made with a stored credential for a consumed session, applies the
 * signature counter rule and saves the login (counter, backup state, last use). Returns the
 * credential as saved.
 *
 * Counter rule: when the stored or the new counter is non-zero, the new one must be strictly
 * greater; otherwise a copy of the key may exist (cloned authenticator): the login fails with
 * failed_precondition `counter_regression`, a `clone-detected` event is recorded and nothing is
 * saved. It is checked only after the signature verified, so forged responses cannot raise it.
 */
export async function verifyAssertion(deps: CeremonyDomainDeps, input: VerifyAssertionInput): Promise<CredentialRecord> {
  const { parsed, credential, session } = input;
  checkCeremonyData(parsed.clientData, parsed.authData, {
    type: 'webauthn.get',
    origins: input.origins,
    rpId: session.rpId,
    userVerification: session.userVerification,
  });

  // The authenticator names the user the passkey was created for; it must be the credential's user.
  if (parsed.userHandle !== null) {
    // Passkeys stored before the handle was kept with them have it in webauthn_users only.
    const handle = credential.userHandle ?? (await storedUserHandle(deps, credential));
    if (handle !== parsed.userHandle) {
      throw invalidArgument('user_handle_mismatch', "the response's userHandle is not the WebAuthn user handle of the passkey's user");
    }
  }

  let verified: boolean;
  try {
    const result = await verifyAuthenticationResponse({
      response: parsed.json,
      expectedChallenge: session.challenge,
      expectedOrigin: [...input.origins],
      expectedRPID: session.rpId,
      requireUserVerification: session.userVerification === 'required',
      // The counter rule is applied below, after the signature is known to be genuine.
      credential: { id: credential.credentialId, publicKey: new Uint8Array(credential.publicKey), counter: 0, transports: [] },
    });
    verified = result.verified;
  } catch (err) {
    // Any other objection of the verifier (signature encoding, flags, key): the input's fault.
    throw new DomainError('invalid_argument', 'assertion_invalid', 'the assertion could not be verified', [], { cause: err });
  }
  // The signature over authenticator data and client data does not verify with the stored key.
  if (!verified) throw invalidArgument('signature_invalid', "the assertion's signature does not verify with the passkey's public key");

  const block = input.cloneDetection === 'block';
  // Checked after the signature: only the holder of a key learns that it is flagged.
  if (block && credential.cloneDetectedAt) throw flagged(credential);
  const newCounter = parsed.authData.counter;
  if ((credential.counter > 0 || newCounter > 0) && newCounter <= credential.counter) {
    throw await cloneDetected(deps, input, newCounter, credential.counter);
  }
  const saved = await deps.credentials.recordUse(
    credential.projectId,
    credential._id,
    { counter: newCounter, backupState: parsed.authData.flags.bs, lastUsedAt: deps.now() },
    { refuseFlagged: block },
  );
  if (saved) return saved;
  // The guard failed: the passkey was deleted or flagged meanwhile, or a concurrent login saved a
  // counter at least as high as this one (the same rule, decided atomically at write time).
  const current = await deps.credentials.findByCredentialId(credential.projectId, credential.credentialId);
  if (!current) throw notFound('credential_not_found', 'the passkey was deleted during the login');
  if (block && current.cloneDetectedAt) throw flagged(current);
  throw await cloneDetected(deps, input, newCounter, current.counter);
}

async function storedUserHandle(deps: CeremonyDomainDeps, credential: VerifiableCredential): Promise<string | null> {
  const handle = await deps.webauthnUsers.find(credential.projectId, credential.userId);
  return handle ? Buffer.from(handle).toString('base64url') : null;
}

function flagged(credential: VerifiableCredential): DomainError {
  return failedPrecondition(
    'passkey_clone_detected',
    `passkey ${credential._id} was flagged as possibly cloned on ${credential.cloneDetectedAt?.toISOString()} and cannot log in any more under the project's clone detection policy; delete it and register a new one`,
  );
}

/**
 * Flags the passkey and records the events (the insights' clone-detected, and the webhook event
 * passkey.clone-detected, one outbox write after the flag and before the answer); the error that
 * refuses this login. Every regression is reported, not only the first: each is another sighting.
 */
async function cloneDetected(deps: CeremonyDomainDeps, input: VerifyAssertionInput, got: number, stored: number): Promise<DomainError> {
  await deps.credentials.flagClone(input.credential.projectId, input.credential._id, deps.now());
  await Promise.all([
    recordEvent(deps, {
      projectId: input.credential.projectId,
      userId: input.credential.userId,
      type: 'clone-detected',
      processId: input.processId,
      trackingId: input.trackingId,
      credentialId: input.credential._id,
      reason: 'counter_regression',
      client: input.client,
      at: deps.now(),
    }, input.session.operation),
    deps.events.record(
      cloneDetectedEvent({ projectId: input.credential.projectId, passkey: input.credential, counter: got, storedCounter: stored, blocked: input.cloneDetection === 'block', client: input.client }),
    ),
  ]);
  return failedPrecondition('counter_regression', `the signature counter did not increase (got ${got}, stored ${stored}): the passkey may have been cloned`);
}
