import { invalidArgument } from '../../../runtime/errors.js';
import type { CeremonyOperation, SessionRecord } from '../store/sessions.js';
import type { CeremonyDomainDeps } from './deps.js';
import type { CeremonyEvent, ClientContext } from './insights/types.js';
import { recordEvent } from './recordEvent.js';

export interface RecordClientEventInput {
  projectId: string;
  /** The flow's user as the client reports it; "" when the flow does not know it. */
  userId: string;
  /** The connect process the event belongs to. */
  processId: string;
  /** The connect event type, e.g. "append-explicit-abort". */
  eventType: string;
  /** The client's message code; kept only when it is one (MESSAGE_CODE). */
  message: string;
  /** The WebAuthn challenge (base64url) of the ceremony the event is about; "" when none. */
  challenge: string;
  /** Absent when the client sent none. */
  client?: ClientContext;
}

/** The ceremony event types a client-reported event is recorded as. */
export type ClientEventRecordedAs = 'append-failed' | 'login-failed' | 'client-event';

/**
 * Every connect event type the web SDK reports. An aborted or failed append or login is that
 * ceremony's failure (for an append, history then cools down its variant); everything else is
 * kept as a client event for the audit trail and does not touch history.
 */
const RECORDED_AS: Record<string, ClientEventRecordedAs> = {
  'append-explicit-abort': 'append-failed',
  'append-error': 'append-failed',
  'append-error-unexpected': 'append-failed',
  'append-credential-exists': 'append-failed',
  'login-explicit-abort': 'login-failed',
  'login-error': 'login-failed',
  'login-error-untyped': 'login-failed',
  'login-error-unexpected': 'login-failed',
  'login-no-credentials': 'login-failed',
  'login-one-tap-switch': 'client-event',
  'user-login-blacklisted': 'client-event',
  'user-append-after-cross-platform-blacklisted': 'client-event',
  'user-append-after-login-error-blacklisted': 'client-event',
  'append-learn-more': 'client-event',
  'manage-error-unexpected': 'client-event',
};

/** The ceremonies whose session may tell whom and which process an event of each kind concerns. */
const SESSION_OPERATIONS: Record<ClientEventRecordedAs, readonly CeremonyOperation[]> = {
  'append-failed': ['append'],
  // The connect login flow may have run as conditional UI (a mediation session).
  'login-failed': ['login', 'mediation'],
  'client-event': ['append', 'login', 'mediation'],
};

/** A short client-reported code; anything else (free text, markup, secrets, stack traces) is dropped. */
const MESSAGE_CODE = /^[A-Za-z0-9 ._:-]{0,200}$/;

/**
 * Records an event the web SDK reported in a connect flow (the frontend API's /v2/connect/events)
 * so that it feeds history and cooldowns like the ceremonies' own events. The ceremony named by
 * the challenge decides the user and process (the client's claims are only the fallback): the
 * event then belongs to the append attempt its session started. The session is only read, never
 * consumed, so the ceremony can still be finished. Recording never fails the call (recordEvent);
 * returns the event type it was recorded as.
 */
export async function recordClientEvent(
  deps: Pick<CeremonyDomainDeps, 'sessions' | 'insights' | 'logger' | 'outcomes' | 'now'>,
  input: RecordClientEventInput,
): Promise<ClientEventRecordedAs> {
  // Only the SDK's own event types: the reason is a metric label and must stay a known, small set.
  const recordedAs = Object.hasOwn(RECORDED_AS, input.eventType) ? RECORDED_AS[input.eventType] : undefined;
  if (!recordedAs) {
    throw invalidArgument('validation_error', `eventType ${JSON.stringify(input.eventType)} is not a known connect event type`, [
      { field: 'eventType', message: 'must be a known connect event type, e.g. "append-explicit-abort"' },
    ]);
  }
  const session = await sessionOf(deps, input, recordedAs);
  // The client message is kept only when it is a short code; a dropped one is never logged either.
  const message = input.message !== '' && MESSAGE_CODE.test(input.message) ? input.message : undefined;
  const event: CeremonyEvent = {
    projectId: input.projectId,
    userId: session?.userId || input.userId || undefined,
    type: recordedAs,
    reason: input.eventType,
    processId: session?.processId || input.processId,
    situation: session?.situation || undefined,
    message,
    client: input.client,
    at: deps.now(),
  };
  await recordEvent(deps, event);
  return recordedAs;
}

/**
 * The ceremony session the challenge names, when it is of a kind the event can concern. An
 * unknown challenge (never issued, finished or swept) or one of another kind of ceremony (an
 * append abort naming a login challenge) tells nothing, and the client's user and process are used.
 */
async function sessionOf(deps: Pick<CeremonyDomainDeps, 'sessions'>, input: RecordClientEventInput, recordedAs: ClientEventRecordedAs): Promise<SessionRecord | null> {
  if (input.challenge === '') return null;
  const session = await deps.sessions.findByChallenge(input.projectId, input.challenge);
  return session && SESSION_OPERATIONS[recordedAs].includes(session.operation) ? session : null;
}
