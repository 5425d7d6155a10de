/**
 * Maps the free-form `situation` of B2 to one of the append variants the interface knows. History
 * (counts and cooldowns) and the decision both use this mapping, so an unknown situation is
 * counted and cooled down exactly like the variant it is shown as.
 */
export type AppendVariant = 'default' | 'after-error' | 'after-hybrid';

export const APPEND_VARIANTS: readonly AppendVariant[] = ['default', 'after-error', 'after-hybrid'];

/** "after-error", "After_Error " → after-error; anything unknown (or absent) → default. */
export function appendVariantOf(situation: string | undefined): AppendVariant {
  const normalized = (situation ?? '').trim().toLowerCase().replace(/_/g, '-');
  return (APPEND_VARIANTS as readonly string[]).includes(normalized) ? (normalized as AppendVariant) : 'default';
}
