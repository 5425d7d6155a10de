import { generateRegistrationOptions } from '@simplewebauthn/server';
import { randomBytes } from 'node:crypto';
import { notFound } from '../../../runtime/errors.js';
import { newId } from '../../../runtime/ids.js';
import type { SessionRecord } from '../store/sessions.js';
import { ATTESTATION, CEREMONY_TIMEOUT_MS, SESSION_LIFETIME_MS, SUPPORTED_ALGORITHMS, newChallenge } from './ceremonyRules.js';
import type { CeremonyDomainDeps } from './deps.js';
import type { AppendFlags, AppendInsights, ClientContext } from './insights/types.js';
import { summarizePasskeys } from './summarizePasskeys.js';

export interface StartAppendInput {
  projectId: string;
  userId: string;
  processId: string;
  username: string;
  client: ClientContext;
  flags: AppendFlags;
  situation: string;
}

export interface StartedAppend {
  /** `{"publicKey": PublicKeyCredentialCreationOptionsJSON}` for navigator.credentials.create(). */
  attestationOptions: string;
  insights: AppendInsights;
  challengeId: string;
}

/**
 * B2: starts a passkey registration for an existing user of the project. The options are always
 * returned, also when the insights advise against the append (appendAllow=false): the application
 * decides. The ceremony session is bound to project, user and process and lives five minutes.
 */
export async function startAppend(deps: CeremonyDomainDeps, input: StartAppendInput): Promise<StartedAppend> {
  const project = await deps.projects.get(input.projectId);
  const user = await deps.users.find(input.projectId, input.userId);
  if (!user) throw notFound('user_not_found', `user ${input.userId} does not exist`);
  const now = deps.now();

  // The handle is opaque and stable per user: an explicit one configured for the user, else 32
  // random bytes created at the first append (never the user ID itself).
  const candidate = user.explicitWebauthnId !== undefined ? new Uint8Array(Buffer.from(user.explicitWebauthnId, 'utf8')) : new Uint8Array(randomBytes(32));
  // Independent of each other: one store round trip for both.
  const [userHandle, existing] = await Promise.all([deps.webauthnUsers.ensure(input.projectId, input.userId, candidate, now), deps.credentials.listForUser(input.projectId, input.userId)]);

  const challenge = newChallenge();
  const options = await generateRegistrationOptions({
    rpName: project.rpName,
    rpID: project.rpId,
    userName: input.username,
    userDisplayName: user.fullName ?? input.username,
    userID: new Uint8Array(userHandle),
    challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: ATTESTATION,
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    // Discoverable credentials (passkeys) only, so conditional UI and username-less login work.
    // No authenticatorAttachment: platform authenticators, password managers, phones (hybrid)
    // and security keys may all hold the passkey.
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: project.userVerification },
    // The user's existing passkeys, so an authenticator that already holds one says so instead of
    // creating a second.
    excludeCredentials: existing.map((c) => ({ id: c.credentialId, ...(c.transports.length ? { transports: [...c.transports] } : {}) })),
  });

  const session: SessionRecord = {
    _id: newId('pch'),
    projectId: input.projectId,
    operation: 'append',
    userId: input.userId,
    username: input.username,
    processId: input.processId,
    challenge: options.challenge,
    rpId: project.rpId,
    userVerification: project.userVerification,
    situation: input.situation,
    userHandle: Buffer.from(userHandle).toString('base64url'),
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
  };
  await deps.sessions.insert(session);

  // After the session is stored, so no start is recorded for a session that is not there. The
  // start is recorded with the decision, in one write (AppendInsightsInput.started).
  const insights = await deps.insights.forAppend({
    projectId: input.projectId,
    userId: input.userId,
    client: input.client,
    flags: input.flags,
    situation: input.situation,
    passkeys: summarizePasskeys(existing),
    now,
    started: { processId: input.processId },
  });

  return { attestationOptions: JSON.stringify({ publicKey: options }), insights, challengeId: session._id };
}
