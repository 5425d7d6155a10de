/**
 * The webhook events the ceremony produces (its outbox, `ceremony_outbox`), built in one place so
 * their payloads stay alike. `data` carries the IDs the backend API uses: `passkeyID` is the `id` of
 * `GET /v2/users/{userID}/credentials`, `credentialID` the WebAuthn credential ID. The hosted
 * service's passkey events carry a `credential` object ({id, webAuthnID, browser, os}); ours carry
 * it too, so a receiver written for the hosted service finds what it reads. Catalogue:
 * docs/api/webhooks.md.
 */
import type { OutboxEvent } from '../../../runtime/outbox.js';
import type { CredentialRecord } from '../store/credentials.js';
import type { ClientContext } from './insights/types.js';
import { parseUserAgent } from './insights/userAgent.js';

type Passkey = Pick<CredentialRecord, '_id' | 'userId' | 'credentialId' | 'userHandle' | 'sourceOS' | 'sourceBrowser'>;

/**
 * The payload's metadata: the end user's address, and the OS and browser names (as passkey.created
 * has them: from the user agent, parsed once per string and cached, else from what the application
 * parsed itself).
 */
export function eventClientOf(client: ClientContext): NonNullable<OutboxEvent['client']> {
  const ua = parseUserAgent(client.userAgent);
  return {
    ip: client.remoteAddress,
    os: ua.osName || client.parsedDeviceInfo?.osName || '',
    browser: ua.browserName || client.parsedDeviceInfo?.browserName || '',
  };
}

/** The IDs every passkey event carries, and the hosted service's `credential` object. */
function passkeyData(passkey: Passkey): Record<string, unknown> {
  return {
    userID: passkey.userId,
    passkeyID: passkey._id,
    credentialID: passkey.credentialId,
    credential: {
      id: passkey._id,
      // The WebAuthn user handle (base64url) the passkey was made for; passkeys stored before it was kept with them have none here.
      ...(passkey.userHandle !== undefined ? { webAuthnID: passkey.userHandle } : {}),
      browser: passkey.sourceBrowser,
      os: passkey.sourceOS,
    },
  };
}

export function passkeyCreatedEvent(projectId: string, passkey: Passkey & Pick<CredentialRecord, 'aaguid'>, client: ClientContext): OutboxEvent {
  return { projectId, type: 'passkey.created', data: { ...passkeyData(passkey), aaguid: passkey.aaguid }, client: eventClientOf(client) };
}

/** A passkey deleted by the application (backend API) or by its user (/v2/me): no end-user client reaches the ceremony. */
export function passkeyDeletedEvent(projectId: string, passkey: Passkey): OutboxEvent {
  return { projectId, type: 'passkey.deleted', data: passkeyData(passkey) };
}

/** A verified assertion, saved (B5, B7, and the frontend logins that ask for B5/B7). */
export function loginCompletedEvent(projectId: string, passkey: Passkey, client: ClientContext): OutboxEvent {
  return { projectId, type: 'passkey-login.completed', data: passkeyData(passkey), client: eventClientOf(client) };
}

export interface LoginFailure {
  projectId: string;
  /** The user the login was for (B5), or whose passkey the response named (B7), when known. */
  userId?: string;
  /** The passkey, when the response named one of that user's. */
  passkeyId?: string;
  /** The credential ID the response named (whether or not it is a stored passkey). */
  credentialId: string;
  /** The error type the ceremony answered (`signature_invalid`, `challenge_expired`, …). */
  reason: string;
  client: ClientContext;
}

export function loginFailedEvent(f: LoginFailure): OutboxEvent {
  return {
    projectId: f.projectId,
    type: 'passkey-login.failed',
    data: {
      ...(f.userId !== undefined ? { userID: f.userId } : {}),
      ...(f.passkeyId !== undefined ? { passkeyID: f.passkeyId } : {}),
      credentialID: f.credentialId,
      // One spelling for every reason: B7's credential-deleted and user-deleted become credential_deleted, user_deleted.
      reason: f.reason.replaceAll('-', '_'),
    },
    client: eventClientOf(f.client),
  };
}

export interface CloneDetection {
  projectId: string;
  passkey: Pick<CredentialRecord, '_id' | 'userId' | 'credentialId'>;
  /** The signature counter the assertion carried, and the one stored (at least as high). */
  counter: number;
  storedCounter: number;
  /** The project's policy is "block": the passkey never logs in again. */
  blocked: boolean;
  client: ClientContext;
}

export function cloneDetectedEvent(c: CloneDetection): OutboxEvent {
  return {
    projectId: c.projectId,
    type: 'passkey.clone-detected',
    data: { userID: c.passkey.userId, passkeyID: c.passkey._id, credentialID: c.passkey.credentialId, counter: c.counter, storedCounter: c.storedCounter, blocked: c.blocked },
    client: eventClientOf(c.client),
  };
}
