/**
 * The flags of a connect init: an object of strings from the client (the web SDK keeps them in
 * local storage), merged with the project's own flags (mergeFlags in initFlow.ts), which win, so a project can
 * switch a client-side behaviour for every client at once.
 */
import { invalidArgument, type FieldProblem } from '../../../../runtime/errors.js';

const MAX_FLAGS = 50;
const MAX_KEY = 64;
const MAX_VALUE = 256;

export function checkClientFlags(json: Record<string, unknown>): Record<string, string> {
  const problems: FieldProblem[] = [];
  const entries = Object.entries(json);
  if (entries.length > MAX_FLAGS) problems.push({ field: 'flags', message: `must have at most ${MAX_FLAGS} entries` });
  const out: Record<string, string> = {};
  for (const [key, value] of entries.slice(0, MAX_FLAGS)) {
    if (key.length === 0 || key.length > MAX_KEY) problems.push({ field: 'flags', message: `keys must be 1 to ${MAX_KEY} characters` });
    else if (typeof value !== 'string') problems.push({ field: `flags.${key}`, message: 'must be a string' });
    else if (value.length > MAX_VALUE) problems.push({ field: `flags.${key}`, message: `must be at most ${MAX_VALUE} characters` });
    else out[key] = value;
  }
  if (problems.length) throw invalidArgument('validation_error', problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
  return out;
}
