/**
 * A bounded map whose entries expire: facts another service owns (projects, users), kept for a
 * short time so a ceremony does not ask for them on every request, and dropped explicitly when
 * their owner says they changed. At most `maxEntries` are kept; the least recently set goes first.
 *
 * Written here rather than taken from a package because it is a dozen lines over Map's insertion
 * order, and the callers need `forget` with the exact semantics above.
 */
export interface TtlCacheOptions {
  ttlMs: number;
  maxEntries: number;
  now?: () => number;
}

export interface TtlCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  forget(key: string): void;
  /** Drops every key for which the predicate holds (e.g. all entries of one project). */
  forgetWhere(predicate: (key: string) => boolean): void;
  readonly size: number;
}

export function createTtlCache<V>(opts: TtlCacheOptions): TtlCache<V> {
  // Looked up on each call, so a clock replaced later (fake timers in tests) is the one used.
  const now = opts.now ?? (() => Date.now());
  const entries = new Map<string, { value: V; expires: number }>();
  return {
    get(key) {
      const hit = entries.get(key);
      if (!hit) return undefined;
      if (hit.expires > now()) return hit.value;
      entries.delete(key);
      return undefined;
    },
    set(key, value) {
      // Re-inserting moves the key to the end of Map's order, so the first key is the oldest.
      entries.delete(key);
      if (entries.size >= opts.maxEntries) entries.delete(entries.keys().next().value as string);
      entries.set(key, { value, expires: now() + opts.ttlMs });
    },
    forget(key) {
      entries.delete(key);
    },
    forgetWhere(predicate) {
      for (const key of [...entries.keys()]) if (predicate(key)) entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
