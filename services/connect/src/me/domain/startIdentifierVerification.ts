/**
 * F11 (/v2/me/identifier/verify/start): sends a one-time code to one of the signed-in user's
 * identifiers, by email (email_otp) or SMS (sms_otp). The challenge service creates, limits and
 * delivers it (the code never passes through here); we keep only which challenge it was.
 *
 * An identifier that is already verified (status "verified" or "primary") is refused with 409
 * identifier_already_verified rather than verified again: a second verification would change
 * nothing, and refusing keeps this endpoint from sending mails or SMS that serve no purpose.
 */
import { failedPrecondition, invalidArgument } from '../../../../runtime/errors.js';
import type { IdentifierType } from '../../users/index.js';
import type { CodeChannel } from '../../shared/domain/oneTimeCodes.js';
import type { MeCall, MeDeps } from './meDeps.js';
import { myIdentifier, signedInUser } from './signedInUser.js';

const CHALLENGE_TYPE: Partial<Record<IdentifierType, CodeChannel>> = { email: 'email_otp', phone: 'sms_otp' };
/** How long the pointer to the challenge outlives the challenge, so a late finish is told "expired" (410), not "not started". */
const KEEP_AFTER_CHALLENGE_EXPIRY_MS = 24 * 3600 * 1000;

export async function startIdentifierVerification(deps: MeDeps, call: MeCall, identifierId: string): Promise<void> {
  const user = await signedInUser(deps, call);
  const identifier = await myIdentifier(deps, call.projectId, user._id, identifierId);
  const challengeType = CHALLENGE_TYPE[identifier.type];
  // A username reaches nobody: there is no inbox or phone to send a code to.
  if (!challengeType) {
    throw invalidArgument('validation_error', `identifier ${identifierId} is a ${identifier.type}; only email addresses and phone numbers can be verified`, [
      { field: 'identifierID', message: 'names a username; only email addresses and phone numbers can be verified' },
    ]);
  }
  if (identifier.status !== 'pending') throw failedPrecondition('identifier_already_verified', `identifier ${identifierId} is already verified (status ${identifier.status})`);

  const challenge = await deps.challenges.send(call, { userId: user._id, channel: challengeType, identifierValue: identifier.value });
  const now = deps.now();
  await deps.identifierVerifications.put({
    _id: identifier._id,
    projectId: call.projectId,
    userId: user._id,
    identifierValue: identifier.value,
    challengeId: challenge.challengeId,
    createdAt: now,
    expiresAt: new Date(challenge.expiresAtSeconds * 1000 + KEEP_AFTER_CHALLENGE_EXPIRY_MS),
  });
}
