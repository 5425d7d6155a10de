import { generateAuthenticationOptions } from '@simplewebauthn/server';
import { notFound } from '../../../runtime/errors.js';
import { newId } from '../../../runtime/ids.js';
import type { SessionRecord } from '../store/sessions.js';
import { CEREMONY_TIMEOUT_MS, SESSION_LIFETIME_MS, hintsFor, newChallenge, offeredTransports } from './ceremonyRules.js';
import type { CeremonyDomainDeps } from './deps.js';
import type { ClientContext, CrossDeviceStrategy, LoginInsights } from './insights/types.js';
import { summarizePasskeys } from './summarizePasskeys.js';

export interface StartLoginInput {
  projectId: string;
  userId: string;
  processId: string;
  client: ClientContext;
  strategy: CrossDeviceStrategy;
}

export interface StartedLogin {
  /** `{"publicKey": PublicKeyCredentialRequestOptionsJSON}` for navigator.credentials.get(). */
  assertionOptions: string;
  insights: LoginInsights;
  challengeId: string;
}

/**
 * B4: starts a passkey login for a known user: allowCredentials lists the user's passkeys, with
 * transports and hints shaped by the cross-device strategy (see offeredTransports). The session is
 * bound to project, user and process and lives five minutes.
 */
export async function startLogin(deps: CeremonyDomainDeps, input: StartLoginInput): Promise<StartedLogin> {
  const project = await deps.projects.get(input.projectId);
  const user = await deps.users.find(input.projectId, input.userId);
  if (!user) throw notFound('user_not_found', `user ${input.userId} does not exist`);
  const now = deps.now();
  // The passkeys are read while the insights record the client environment's visit: neither needs
  // the other's answer, so B4 waits for one store round trip instead of two. Every promise is in
  // the Promise.all, so a failure of any is the request's failure and none goes unhandled.
  const credentialsRead = deps.credentials.listForUser(input.projectId, input.userId);
  const passkeysRead = credentialsRead.then(summarizePasskeys);
  const [credentials, , insights] = await Promise.all([
    credentialsRead,
    passkeysRead,
    deps.insights.forLogin({ projectId: input.projectId, userId: input.userId, client: input.client, strategy: input.strategy, passkeys: passkeysRead, now }),
  ]);

  const challenge = newChallenge();
  const options = await generateAuthenticationOptions({
    rpID: project.rpId,
    challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
    timeout: CEREMONY_TIMEOUT_MS,
    userVerification: project.userVerification,
    allowCredentials: credentials.map((c) => {
      const transports = offeredTransports(c.transports, input.strategy);
      return { id: c.credentialId, ...(transports.length ? { transports } : {}) };
    }),
  });
  const hints = hintsFor(input.strategy);
  const publicKey = hints.length ? { ...options, hints } : options;

  const session: SessionRecord = {
    _id: newId('pch'),
    projectId: input.projectId,
    operation: 'login',
    userId: input.userId,
    username: '',
    processId: input.processId,
    challenge: options.challenge,
    rpId: project.rpId,
    userVerification: project.userVerification,
    situation: '',
    allowed: credentials.map((c) => ({
      id: c._id,
      credentialId: c.credentialId,
      publicKey: c.publicKey,
      counter: c.counter,
      ...(c.userHandle !== undefined ? { userHandle: c.userHandle } : {}),
      ...(c.cloneDetectedAt !== undefined ? { cloneDetectedAt: c.cloneDetectedAt } : {}),
    })),
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS),
  };
  await deps.sessions.insert(session);

  // forLogin recorded the client environment's visit; the event is written in the background.
  await deps.insights.recordEvent({ projectId: input.projectId, userId: input.userId, type: 'login-started', processId: input.processId, client: input.client, at: now });

  return { assertionOptions: JSON.stringify({ publicKey }), insights, challengeId: session._id };
}
