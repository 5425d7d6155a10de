/**
 * What the producers may skip, and how a new subscription reaches them before it is answered.
 *
 * A producer (connect, ceremony) asks which types a project's endpoints subscribe to and writes no
 * outbox entry for any other type, so a project without endpoints pays nothing. It relies on the
 * answer for `validMs` counted from when it *sent* the request (services/runtime/subscribedTypesCache.ts),
 * so any answer read before an endpoint was stored stops being relied on at most `validMs` after
 * that store. A create (or an update adding types) therefore answers only after `validMs` plus a
 * margin has passed since its write: a change acknowledged after that answer was checked against
 * an answer that already contains the new types, or was written anyway. The margin covers the
 * producer's time between its last look at the answer's validity and its acknowledgement, and the
 * difference of the two processes' clock rates. Calls stay one way: the events service only answers.
 */
import type { WebhookEndpointStore } from './ports.js';

/** Between a producer's last check of its cached answer and its acknowledgement; and clock-rate drift. */
export const PRODUCER_MARGIN_MS = 1000;

export interface SubscriptionDeps {
  endpoints: WebhookEndpointStore;
  /**
   * WEBHOOK_SUBSCRIPTION_CACHE_MS: how long producers may rely on an answer. 0 turns skipping off
   * (every event is written) and with it the wait. Every events replica must have the same value.
   */
  subscriptionCacheMs: number;
  /** Waits (tests replace it). */
  sleep?: (ms: number) => Promise<void>;
}

export async function getSubscribedEventTypes(deps: SubscriptionDeps, projectId: string): Promise<{ types: string[]; validMs: number }> {
  return { types: await deps.endpoints.subscribedTypes(projectId), validMs: deps.subscriptionCacheMs };
}

/**
 * Resolves once no producer can still rely on an answer without the `addedTypes` of `endpointId`,
 * stored (created or updated) at `changedAt`; call it after the write, before answering. It waits
 * `subscriptionCacheMs` + margin unless another endpoint of the project already subscribed to each
 * of those types and has been unchanged for longer than that (plus a margin for its own write): every answer read since
 * then holds the type, and every older one has expired. Endpoints are never changed back in place
 * without a new `updatedAt`, and a deleted one is gone for good, so "unchanged since" means "held
 * the type all along". Disabled endpoints count: the union includes them, so re-enabling one adds nothing.
 */
export async function waitUntilProducersSee(deps: SubscriptionDeps, projectId: string, endpointId: string, addedTypes: readonly string[], changedAt: Date): Promise<void> {
  if (deps.subscriptionCacheMs === 0 || addedTypes.length === 0) return;
  const windowMs = deps.subscriptionCacheMs + PRODUCER_MARGIN_MS;
  const settledBefore = changedAt.getTime() - windowMs - PRODUCER_MARGIN_MS;
  const held = new Set((await deps.endpoints.list(projectId)).filter((e) => e._id !== endpointId && e.updatedAt.getTime() <= settledBefore).flatMap((e) => e.subscribedEvents));
  if (addedTypes.every((t) => held.has(t))) return;
  await (deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))))(windowMs);
}
