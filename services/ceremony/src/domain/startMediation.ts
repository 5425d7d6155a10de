import { generateAuthenticationOptions } from '@simplewebauthn/server';
import { newId } from '../../../runtime/ids.js';
import type { SessionRecord } from '../store/sessions.js';
import { CEREMONY_TIMEOUT_MS, SESSION_LIFETIME_MS, newChallenge } from './ceremonyRules.js';
import type { CeremonyDomainDeps } from './deps.js';
import type { ClientContext } from './insights/types.js';

export interface StartMediationInput {
  projectId: string;
  /** Absent: the session is bound to no process and B7 may name any. */
  processId?: string;
  client: ClientContext;
}

export interface StartedMediation {
  /** Whether conditional UI should be offered: the client reports conditional mediation. */
  loginAllow: boolean;
  /** `{"publicKey": …}` without allowCredentials: the browser offers every passkey of the RP. */
  assertionOptions: string;
  challengeId: string;
}

/** B6: starts a conditional-UI (autofill) login; the user is learned from the credential at B7. */
export async function startMediation(deps: CeremonyDomainDeps, input: StartMediationInput): Promise<StartedMediation> {
  const project = await deps.projects.get(input.projectId);
  const now = deps.now();
  const challenge = newChallenge();
  const options = await generateAuthenticationOptions({
    rpID: project.rpId,
    challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
    timeout: CEREMONY_TIMEOUT_MS,
    userVerification: project.userVerification,
  });

  const session: SessionRecord = {
    _id: newId('pch'),
    projectId: input.projectId,
    operation: 'mediation',
    userId: '',
    username: '',
    processId: input.processId ?? '',
    challenge: options.challenge,
    rpId: project.rpId,
    userVerification: project.userVerification,
    situation: '',
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
  };
  await deps.sessions.insert(session);
  await deps.insights.recordEvent({
    projectId: input.projectId,
    type: 'mediation-started',
    ...(input.processId !== undefined ? { processId: input.processId } : {}),
    client: input.client,
    at: now,
  });

  const loginAllow = input.client.conditionalMediationAvailable || input.client.capabilities.conditionalMediation === true;
  return { loginAllow, assertionOptions: JSON.stringify({ publicKey: options }), challengeId: session._id };
}
