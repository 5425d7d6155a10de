import { DomainError } from '../../../../runtime/errors.js';
import type { DeliveryChannel, DeliveryDeps } from './ports.js';

/** Pauses before the second and third attempt: long enough for a brief outage, short enough for an RPC. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [250, 1000];

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface RetryContext {
  channel: DeliveryChannel;
  /** Safe to log: challengeId, type or notification kind. Never the value or the recipient. */
  logFields: Record<string, string>;
  /** Strings that must not reach the logs even if a provider echoes them in an error (the value, the recipient). */
  secrets: string[];
  /** What failed, for the caller: "the email_otp challenge by email". */
  what: string;
}

/** An error message with every secret replaced, so a provider that echoes the message body cannot leak the code. */
function scrub(message: string, secrets: string[]): string {
  let out = message;
  for (const secret of secrets) if (secret) out = out.split(secret).join('[redacted]');
  return out;
}

/**
 * Runs `send` until it succeeds, at most DEFAULT_RETRY_DELAYS_MS.length + 1 times, waiting between
 * attempts. Each failure is logged (fields, attempt, scrubbed error message); after the last one
 * the caller gets unavailable `delivery_failed` naming the channel. Returns the attempts used.
 * The message is counted in deps.deliveries once: sent, or failed after the last attempt.
 */
export async function sendWithRetry(deps: DeliveryDeps, ctx: RetryContext, send: () => Promise<void>): Promise<number> {
  const delays = deps.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const sleep = deps.sleep ?? realSleep;
  const attempts = delays.length + 1;
  let lastMessage = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      await send();
      deps.deliveries?.inc({ channel: ctx.channel, result: 'sent' });
      deps.logger.debug({ ...ctx.logFields, channel: ctx.channel, attempt }, 'delivered');
      return attempt;
    } catch (err) {
      lastMessage = scrub(err instanceof Error ? err.message : String(err), ctx.secrets);
      const final = attempt === attempts;
      const fields = { ...ctx.logFields, channel: ctx.channel, attempt, of: attempts, error: lastMessage };
      if (final) deps.logger.error(fields, 'delivery failed; giving up');
      else deps.logger.warn(fields, 'delivery failed; retrying');
      if (!final) await sleep(delays[attempt - 1]);
    }
  }
  deps.deliveries?.inc({ channel: ctx.channel, result: 'failed' });
  const channelName = ctx.channel === 'email' ? 'email (SMTP)' : 'SMS';
  throw new DomainError(
    'unavailable',
    'delivery_failed',
    `could not deliver ${ctx.what}: the ${channelName} provider failed ${attempts} times; try again later`,
    [],
    // A fresh error carrying only the scrubbed message: the cause is logged by the RPC interceptor.
    { cause: new Error(`${ctx.channel} delivery failed after ${attempts} attempts: ${lastMessage}`) },
  );
}
