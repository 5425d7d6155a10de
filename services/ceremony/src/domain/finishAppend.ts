import { verifyRegistrationResponse } from '@simplewebauthn/server';
import { decodeCredentialPublicKey, cose } from '@simplewebauthn/server/helpers';
import { alreadyExists, DomainError, invalidArgument } from '../../../runtime/errors.js';
import { newId } from '../../../runtime/ids.js';
import type { CredentialRecord } from '../store/credentials.js';
import type { SessionRecord } from '../store/sessions.js';
import { buildPasskeyData } from './buildPasskeyData.js';
import { passkeyCreatedEvent } from './buildPasskeyEvents.js';
import { SUPPORTED_ALGORITHMS } from './ceremonyRules.js';
import { checkCeremonyData } from './checkCeremonyData.js';
import { checkCoseKey } from './checkCoseKey.js';
import { consumeSession } from './consumeSession.js';
import type { CeremonyDomainDeps, PasskeyData } from './deps.js';
import { describeSourceDevice } from './describeSourceDevice.js';
import type { ClientContext } from './insights/types.js';
import { clientEnvKey } from './insights/clientEnvKey.js';
import { parseAttestationResponse, type ParsedAttestation } from './parseAttestationResponse.js';
import { failureReason, recordEvent } from './recordEvent.js';

export interface FinishAppendInput {
  /** The application's tracking ID of this attempt, kept with the events. */
  trackingId?: string;
  projectId: string;
  userId: string;
  processId: string;
  attestationResponse: string;
  client: ClientContext;
  /** The application asks for a "passkey added" notice to the user; recorded with the event. */
  sendNotification: boolean;
}

/**
 * B3: verifies the authenticator's answer to a B2 ceremony and stores the new passkey.
 * Order: parse (400 on malformed input, nothing consumed) → consume the session bound to project,
 * user and process (single use) → verify origin, RP ID, presence, verification policy, algorithm,
 * attestation → store (credential IDs are unique per project) → record the event.
 */
export async function finishAppend(deps: CeremonyDomainDeps, input: FinishAppendInput): Promise<PasskeyData> {
  const parsed = parseAttestationResponse(input.attestationResponse);
  const project = await deps.projects.get(input.projectId);
  const session = await consumeSession(deps, {
    projectId: input.projectId,
    operation: 'append',
    challenge: parsed.clientData.challenge,
    userId: input.userId,
    processIds: [input.processId],
  }).catch(async (err: unknown) => {
    await recordEvent(deps, {
      projectId: input.projectId,
      userId: input.userId,
      type: 'append-failed',
      processId: input.processId,
      trackingId: input.trackingId,
      reason: failureReason(err),
      client: input.client,
      at: deps.now(),
    });
    throw err;
  });
  // Once the answer verifies, the user was seen in this environment: recorded with the outcome's
  // event, in the same write as the user's history (CeremonyEvent.recordVisit).
  let verified = false;
  try {
    await verifyAttestation(parsed, session, project.origins);
    verified = true;
    const now = deps.now();
    const record: CredentialRecord = {
      _id: newId('cre'),
      projectId: input.projectId,
      userId: input.userId,
      username: session.username,
      credentialId: parsed.credentialId,
      publicKey: parsed.authData.credentialPublicKey,
      // Kept with the passkey so a login checks the assertion's userHandle without another read.
      ...(session.userHandle !== undefined ? { userHandle: session.userHandle } : {}),
      algorithm: algorithmOf(parsed.authData.credentialPublicKey),
      counter: parsed.authData.counter,
      transports: parsed.transports,
      aaguid: parsed.authData.aaguid,
      backupEligible: parsed.authData.flags.be,
      backupState: parsed.authData.flags.bs,
      attestationFormat: parsed.fmt,
      createdAt: now,
      lastUsedAt: now,
      clientEnvKey: clientEnvKey(input.client),
      ...describeSourceDevice(input.client),
      status: 'active',
      notificationRequested: input.sendNotification,
    };
    // The event is made durable around the insert: a passkey acknowledged to the application always has its webhook event.
    await deps.events.around(passkeyCreatedEvent(input.projectId, record, input.client), async () => {
      if ((await deps.credentials.insert(record)) === 'duplicate') {
        throw alreadyExists('passkey_already_exists', 'this passkey (credential ID) is already registered in this project');
      }
    });
    await recordEvent(deps, {
      projectId: input.projectId,
      userId: input.userId,
      type: 'append-succeeded',
      situation: session.situation,
      processId: input.processId,
      trackingId: input.trackingId,
      credentialId: record._id,
      client: input.client,
      at: now,
      recordVisit: true,
      // The "passkey added" notice is delivered by the notification work; the request is kept with
      // the event and the passkey.
      notificationRequested: input.sendNotification === true,
    });
    const passkeyData = buildPasskeyData(deps, record, session, parsed.attachment, parsed.transports);
    if (input.sendNotification) await notifyPasskeyAdded(deps, input.projectId, record, passkeyData.aaguidDetails.name);
    return passkeyData;
  } catch (err) {
    await recordEvent(deps, {
      projectId: input.projectId,
      userId: input.userId,
      type: 'append-failed',
      situation: session.situation,
      processId: input.processId,
      trackingId: input.trackingId,
      reason: failureReason(err),
      client: input.client,
      at: deps.now(),
      recordVisit: verified,
    });
    throw err;
  }
}

async function verifyAttestation(parsed: ParsedAttestation, session: SessionRecord, origins: readonly string[]): Promise<void> {
  checkCeremonyData(parsed.clientData, parsed.authData, {
    type: 'webauthn.create',
    origins,
    rpId: session.rpId,
    userVerification: session.userVerification,
  });
  // The key must be usable for the algorithm it names (a login could never verify otherwise).
  const algorithm = checkCoseKey(parsed.authData.credentialPublicKey);
  // Only the algorithms offered in pubKeyCredParams are accepted.
  if (!SUPPORTED_ALGORITHMS.includes(algorithm)) {
    throw invalidArgument('unsupported_algorithm', `the credential's key algorithm ${algorithm} is not one of ${SUPPORTED_ALGORITHMS.join(', ')}`);
  }
  let verified: boolean;
  try {
    const result = await verifyRegistrationResponse({
      response: parsed.json,
      expectedChallenge: session.challenge,
      expectedOrigin: [...origins],
      expectedRPID: session.rpId,
      requireUserPresence: true,
      requireUserVerification: session.userVerification === 'required',
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
    verified = result.verified;
  } catch (err) {
    // Any other objection of the verifier (attestation statement, flags, key): the input's fault.
    throw new DomainError('invalid_argument', 'attestation_invalid', 'the attestation could not be verified', [], { cause: err });
  }
  // The attestation statement's signature does not verify over this authenticator data and client data.
  if (!verified) throw invalidArgument('attestation_invalid', 'the attestation statement does not verify');
}

function algorithmOf(publicKey: Uint8Array): number {
  const alg = decodeCredentialPublicKey(new Uint8Array(publicKey)).get(cose.COSEKEYS.alg);
  return typeof alg === 'number' ? alg : 0;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;

/**
 * B3 sendNotification: email the user that a passkey was added. The user name is where the
 * address comes from (it is the email address in email-based apps); a user name that is no email
 * address, or a failed delivery, is logged and does not undo the stored passkey.
 */
async function notifyPasskeyAdded(deps: Pick<CeremonyDomainDeps, 'notifier' | 'logger'>, projectId: string, record: CredentialRecord, passkeyName: string): Promise<void> {
  if (!EMAIL.test(record.username)) {
    deps.logger.warn({ projectId, credentialId: record._id }, 'passkey-added notice not sent: the user name is not an email address');
    return;
  }
  const device = [record.sourceBrowser, record.sourceOS].filter(Boolean).join(' on ');
  try {
    await deps.notifier.passkeyAdded(projectId, { userId: record.userId, email: record.username, passkeyName, device });
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, projectId, credentialId: record._id }, 'passkey-added notice could not be sent');
  }
}
