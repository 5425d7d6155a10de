/** What a command handler gets, and small parsers shared by the handlers. */
import { Long } from 'bson';
import { Query } from 'mingo';
import type { Catalog } from '../catalog.js';
import type { CursorRegistry } from '../cursors.js';
import { idFirst, isPlainObject, type Doc } from '../documents.js';
import { MongoCommandError } from '../errors.js';

export interface CommandContext {
  catalog: Catalog;
  cursors: CursorRegistry;
  /** The database named by the command's `$db`. */
  db: string;
  connectionId: number;
}

export type CommandHandler = (cmd: Doc, ctx: CommandContext) => Doc;

/** The collection name, which is the value of the command's first field. */
export function collectionName(cmd: Doc, command: string): string {
  const name = cmd[command];
  if (typeof name !== 'string' || name === '') {
    throw new MongoCommandError('InvalidNamespace', `collection name has invalid type ${typeof name}`);
  }
  return name;
}

export function optionalDoc(cmd: Doc, field: string): Doc | undefined {
  const v = cmd[field];
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) throw new MongoCommandError('TypeMismatch', `BSON field '${field}' is the wrong type '${typeof v}', expected type 'object'`);
  return v;
}

export function optionalNumber(cmd: Doc, field: string): number | undefined {
  const v = cmd[field];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'number' ? v : v instanceof Long ? v.toNumber() : Number.NaN;
  if (!Number.isFinite(n)) throw new MongoCommandError('TypeMismatch', `BSON field '${field}' is the wrong type, expected a number`);
  return n;
}

export function requireArray(cmd: Doc, field: string): unknown[] {
  const v = cmd[field];
  if (!Array.isArray(v)) throw new MongoCommandError('FailedToParse', `BSON field '${field}' is missing or not an array`);
  return v;
}

/** Applies a find-style projection (mingo for all but plain inclusions); `_id` stays first as in MongoDB replies. */
export function project(docs: Doc[], projection: Doc | undefined): Doc[] {
  if (!projection || Object.keys(projection).length === 0) return docs;
  const fields = plainInclusion(projection);
  if (fields) return docs.map((d) => includeFields(d, fields));
  return new Query({}).find(docs, projection).all().map((d) => idFirst(d as Doc));
}

/**
 * The fields of `{a: 1, b: true}` (optionally with `_id: 0`): top-level names only, no operators.
 * Those are picked here; mingo's Query would first copy every operator table it has.
 */
function plainInclusion(projection: Doc): { names: Set<string>; withId: boolean } | null {
  const names = new Set<string>();
  let withId = true;
  for (const [key, value] of Object.entries(projection)) {
    if (key.startsWith('$') || key.includes('.')) return null;
    if (key === '_id' && (value === 0 || value === false)) withId = false;
    else if (value === 1 || value === true) names.add(key);
    else return null;
  }
  return names.size ? { names, withId } : null;
}

/** The included fields in the document's own order (as MongoDB returns them), `_id` first. */
function includeFields(doc: Doc, { names, withId }: { names: Set<string>; withId: boolean }): Doc {
  const out: Doc = {};
  if (withId && '_id' in doc) out._id = doc._id;
  for (const key of Object.keys(doc)) if (key !== '_id' && names.has(key)) out[key] = doc[key];
  return out;
}

/** Rejects options the embedded store does not implement, instead of silently ignoring them. */
export function refuseUnsupported(cmd: Doc, fields: string[]): void {
  for (const f of fields) {
    if (cmd[f] !== undefined) throw new MongoCommandError('NotImplemented', `option '${f}' is not supported by the embedded store`);
  }
}
