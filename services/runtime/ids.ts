/** Public identifiers: a type prefix and an unguessable decimal number (the interface's `usr-<number>` shape). */
import { randomInt } from 'node:crypto';

/** `prefix-` followed by 20 random digits (about 66 bits), first digit non-zero. */
export function newId(prefix: string): string {
  let digits = String(randomInt(1, 10));
  for (let i = 1; i < 20; i++) digits += String(randomInt(0, 10));
  return `${prefix}-${digits}`;
}
