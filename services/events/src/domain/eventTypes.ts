/**
 * The event types an endpoint may subscribe to: the hosted service's six, then ours
 * (session.revoked: connect; passkey-login.failed, passkey.clone-detected: ceremony;
 * challenge.locked: challenge).
 */
export const EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.deleted',
  'passkey.created',
  'passkey.deleted',
  'passkey-login.completed',
  'passkey-login.failed',
  'passkey.clone-detected',
  'session.revoked',
  'challenge.locked',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
