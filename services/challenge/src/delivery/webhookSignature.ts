/**
 * Signing of SMS webhook requests, and the check a receiver runs. The signed payload is
 * `${timestamp}.${rawBody}`: binding the timestamp into the signature lets receivers refuse old
 * requests, so a captured request cannot be replayed later.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Passkeyauth-Signature';
export const TIMESTAMP_HEADER = 'X-Passkeyauth-Timestamp';
/** How old a request a receiver should still accept, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** `sha256=<hex HMAC-SHA256 of "${timestamp}.${body}" keyed with the secret>`. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export type WebhookCheck = { ok: true } | { ok: false; reason: string };

/**
 * Verifies a received webhook: the timestamp header is a Unix time in seconds no further than
 * `toleranceSeconds` from now, and the signature header matches the raw body (compared in
 * constant time). `body` must be the bytes as received, before any JSON parsing.
 */
export function verifyWebhookSignature(p: {
  secret: string;
  body: string;
  timestamp: string | undefined;
  signature: string | undefined;
  now?: Date;
  toleranceSeconds?: number;
}): WebhookCheck {
  if (!p.timestamp || !/^\d{1,12}$/.test(p.timestamp)) return { ok: false, reason: `missing or malformed ${TIMESTAMP_HEADER}` };
  const ts = Number(p.timestamp);
  const nowSeconds = Math.floor((p.now ?? new Date()).getTime() / 1000);
  const tolerance = p.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - ts) > tolerance) return { ok: false, reason: `timestamp is ${nowSeconds - ts} s away from now; at most ${tolerance} s allowed` };
  if (!p.signature) return { ok: false, reason: `missing ${SIGNATURE_HEADER}` };
  const expected = Buffer.from(signWebhook(p.secret, ts, p.body));
  const actual = Buffer.from(p.signature);
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return { ok: false, reason: 'signature does not match' };
  return { ok: true };
}
