/**
 * Bounds of the interface's free-form JSON (flags, customData, challengeMetadata, oneTapMeta, …),
 * checked on the parsed body before anything converts it: protobuf's Struct conversion, the
 * services' validation and serialization all cost time per element on one event loop, so a
 * 200 KB array of zeros once held the gateway for seconds.
 *
 * Written by hand because no JSON-size library walks iteratively and stops at the first bound:
 * the walk keeps its own stack (a 20,000-level object cannot overflow the call stack) and
 * gives up as soon as a limit is passed, so its cost is bounded by the limits, not by the input.
 */

export interface FreeFormLimits {
  /** Serialized size in UTF-8 bytes, exactly as Buffer.byteLength(JSON.stringify(value)). */
  maxBytes: number;
  /** Values (objects, arrays, scalars) inside the field, the field itself included. */
  maxElements: number;
  /** Nesting of objects and arrays; the field's own object is level 1. */
  maxDepth: number;
}

/** The interface's 4 KiB for free-form objects; element count and depth follow from it. */
export const FREE_FORM_LIMITS: FreeFormLimits = { maxBytes: 4096, maxElements: 1024, maxDepth: 32 };

/** Why a free-form value is out of bounds, or null when it fits all of them. */
export function measureFreeForm(value: unknown, limits: FreeFormLimits = FREE_FORM_LIMITS): string | null {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 1 }];
  let bytes = 0;
  let elements = 0;
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    elements += 1;
    if (elements > limits.maxElements) return `must hold at most ${limits.maxElements} values`;
    if (v !== null && typeof v === 'object') {
      if (depth > limits.maxDepth) return `nests deeper than ${limits.maxDepth} levels`;
      let members = 0;
      if (Array.isArray(v)) {
        for (const item of v) {
          members += 1;
          // The walk stops at the element bound even inside one huge array.
          if (elements + stack.length > limits.maxElements) return `must hold at most ${limits.maxElements} values`;
          stack.push({ value: item, depth: depth + 1 });
        }
      } else {
        for (const key in v) {
          if (!Object.prototype.hasOwnProperty.call(v, key)) continue;
          members += 1;
          if (elements + stack.length > limits.maxElements) return `must hold at most ${limits.maxElements} values`;
          // "key": — the quoted key and its colon.
          bytes += jsonStringBytes(key) + 1;
          stack.push({ value: (v as Record<string, unknown>)[key], depth: depth + 1 });
        }
      }
      // Brackets, plus a comma between members.
      bytes += 2 + Math.max(0, members - 1);
    } else {
      bytes += scalarBytes(v);
    }
    if (bytes > limits.maxBytes) return `must be at most ${limits.maxBytes} bytes as JSON`;
  }
  return null;
}

function scalarBytes(v: unknown): number {
  if (typeof v === 'string') return jsonStringBytes(v);
  // Numbers, booleans and null serialize as ASCII; JSON.stringify writes non-finite numbers as null.
  return String(JSON.stringify(v) ?? 'null').length;
}

function jsonStringBytes(s: string): number {
  return Buffer.byteLength(JSON.stringify(s));
}
