/**
 * What connect's features share to record the webhook event of a change in connect's outbox
 * (services/runtime/outbox.ts): a guarded change that may find nothing to change, and the
 * end user's client as the payload's metadata describes it.
 */
import { UAParser } from 'ua-parser-js';
import type { EventOutbox, OutboxEvent } from '../../../../runtime/outbox.js';

/** Thrown inside `around` when the guard found nothing to change, so the outbox drops the entry. */
const NOTHING_CHANGED = new Error('nothing changed');

/**
 * Records `event` around a guarded change that answers null (or false) when its guard matched
 * nothing: that change was not made, so its event must not be sent either. The outbox removes an
 * entry whose change threw, so "nothing changed" leaves as an error and comes back as null here.
 */
export async function recordIfChanged<T>(events: EventOutbox, event: OutboxEvent, change: () => Promise<T | null | false>): Promise<T | null> {
  try {
    return await events.around(event, async () => {
      const result = await change();
      if (result === null || result === false) throw NOTHING_CHANGED;
      return result;
    });
  } catch (err) {
    if (err === NOTHING_CHANGED) return null;
    throw err;
  }
}

/**
 * The payload's `metadata.ip/os/browser` for a change a browser made through the frontend API: the
 * address and User-Agent the gateway saw (never what the body claims), the OS and browser by name
 * as the ceremony service names a passkey's source device (ua-parser-js), "" when unknown. Parsed
 * only when an event is recorded, so a request that changes nothing pays nothing.
 */
export function eventClientOf(call: { clientAddress: string; userAgent: string }): NonNullable<OutboxEvent['client']> {
  const ua = call.userAgent ? UAParser(call.userAgent) : undefined;
  return { ip: call.clientAddress, os: ua?.os.name ?? '', browser: ua?.browser.name ?? '' };
}
