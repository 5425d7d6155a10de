/**
 * A producer's memory of which event types a project's webhook endpoints subscribe to (the events
 * service's GetSubscribedEventTypes), so its outbox writes nothing for an event nobody receives: a
 * project without endpoints pays no outbox write. See docs/architecture.md, "Webhooks and the
 * events service".
 *
 * Safety rules, each one keeping "an acknowledged change produces its event":
 * - An answer is relied on for its `validMs` counted from when the request was *sent* (not
 *   answered): the events service makes a create that adds a type wait that long after its write,
 *   so however late an answer arrives, it is dropped before that create answers.
 * - No answer (events down, a timeout, an error) means "write everything", remembered for a
 *   moment so a down events service does not add a failed call to every change. Writing an entry
 *   is always safe; skipping one is safe only on an answer.
 * - Concurrent changes of one project share one request.
 * The clock is monotonic (performance.now), so a wall-clock step cannot stretch an answer's life.
 */
import { performance } from 'node:perf_hooks';

export interface SubscribedTypes {
  types: readonly string[];
  /** How long the answer may be relied on, counted from when it was asked for. */
  validMs: number;
}

/** Asks the events service (the producer's adapter); rejects when it does not answer. */
export type SubscribedTypesLookup = (projectId: string) => Promise<SubscribedTypes>;

/**
 * Whether the event of `type` in `projectId` may be skipped: null when it must be written, else a
 * function telling whether skipping still holds (call it again right before acknowledging a
 * change that took time: false means write the event after all).
 */
export type SubscriptionCheck = (projectId: string, type: string) => Promise<(() => boolean) | null>;

interface Known {
  /** null: unknown (the lookup failed), every type is written. */
  types: ReadonlySet<string> | null;
  until: number;
}

export function createSubscriptionCheck(lookup: SubscribedTypesLookup, opts: { maxEntries?: number; failureBackoffMs?: number; now?: () => number } = {}): SubscriptionCheck {
  const now = opts.now ?? (() => performance.now());
  const maxEntries = opts.maxEntries ?? 10_000;
  const failureBackoffMs = opts.failureBackoffMs ?? 1000;
  const known = new Map<string, Known>();
  const asking = new Map<string, Promise<Known>>();

  const ask = (projectId: string): Promise<Known> => {
    const pending = asking.get(projectId);
    if (pending) return pending;
    const sentAt = now();
    const answer = lookup(projectId)
      .then((r): Known => ({ types: new Set(r.types), until: sentAt + r.validMs }))
      .catch((): Known => ({ types: null, until: now() + failureBackoffMs }))
      .then((k) => {
        known.delete(projectId);
        // Map order is insertion order: the first key is the one set longest ago.
        if (known.size >= maxEntries) known.delete(known.keys().next().value as string);
        known.set(projectId, k);
        asking.delete(projectId);
        return k;
      });
    asking.set(projectId, answer);
    return answer;
  };

  return async (projectId, type) => {
    const hit = known.get(projectId);
    const k = hit && now() < hit.until ? hit : await ask(projectId);
    if (k.types === null || k.types.has(type)) return null;
    const holds = () => now() < k.until;
    return holds() ? holds : null;
  };
}
