/** Write steps shared by insert, update, delete and findAndModify. */
import { BSONRegExp, calculateObjectSize, ObjectId, serialize } from 'bson';
import type { Collection } from '../collection.js';
import { idFirst, isPlainObject, type Doc } from '../documents.js';
import { MongoCommandError } from '../errors.js';
import { applyOperatorUpdate, applyReplacement, isOperatorUpdate, validateUpdate } from '../update.js';
import { MAX_BSON_OBJECT_SIZE } from '../wire.js';

/** Gives a new document its `_id` (first) and checks what MongoDB checks on insert. */
export function prepareInsert(raw: unknown): Doc {
  if (!isPlainObject(raw)) throw new MongoCommandError('TypeMismatch', 'document to insert must be an object');
  const doc = idFirst('_id' in raw ? raw : { _id: new ObjectId(), ...raw });
  checkId(doc._id);
  checkSize(doc);
  return doc;
}

function checkId(id: unknown): void {
  if (Array.isArray(id)) throw new MongoCommandError('BadValue', "can't use an array for _id");
  if (id instanceof RegExp || id instanceof BSONRegExp) throw new MongoCommandError('BadValue', "can't use a regex for _id");
  if (id === undefined) throw new MongoCommandError('BadValue', "can't use undefined for _id");
}

function checkSize(doc: Doc): void {
  const size = calculateObjectSize(doc);
  if (size > MAX_BSON_OBJECT_SIZE) {
    throw new MongoCommandError('BSONObjectTooLarge', `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_OBJECT_SIZE}`);
  }
}

export interface UpdateOutcome {
  matched: number;
  modified: number;
  upsertedId?: unknown;
  /** The document before (or, for an upsert, null) and after the change, for findAndModify. */
  before: Doc | null;
  after: Doc | null;
}

/**
 * Updates the given matches (already filtered, sorted and limited by the caller) or upserts
 * when there are none. Every document is written with one atomic replace, so a unique-index
 * conflict leaves that document as it was.
 */
export function applyUpdate(coll: Collection, matches: Doc[], query: Doc, update: unknown, upsert: boolean): UpdateOutcome {
  validateUpdate(update);
  const operator = isOperatorUpdate(update);
  const out: UpdateOutcome = { matched: matches.length, modified: 0, before: null, after: null };
  for (const doc of matches) {
    const next = operator ? applyOperatorUpdate(doc, update, { isInsert: false }) : applyReplacement(doc, update);
    checkSize(next);
    out.before ??= doc;
    out.after ??= next;
    // nModified counts real changes only, as MongoDB does (a $set to the same value is a no-op).
    if (Buffer.compare(serialize(doc), serialize(next)) === 0) continue;
    coll.replace(doc, next);
    out.modified++;
  }
  if (matches.length === 0 && upsert) {
    const seed = equalityFields(query);
    let doc = operator ? applyOperatorUpdate(seed, update, { isInsert: true }) : { ...(seed._id !== undefined ? { _id: seed._id } : {}), ...update };
    if (!('_id' in doc)) doc = { _id: new ObjectId(), ...doc };
    doc = idFirst(doc);
    checkId(doc._id);
    checkSize(doc);
    coll.insert(doc);
    out.upsertedId = doc._id;
    out.after = doc;
  }
  return out;
}

/** The fields an upsert copies from its query: top-level (and `$and`) equality conditions. */
function equalityFields(query: Doc): Doc {
  const set: Doc = {};
  const collect = (q: Doc) => {
    for (const [k, v] of Object.entries(q)) {
      if (k === '$and' && Array.isArray(v)) v.forEach((b) => isPlainObject(b) && collect(b));
      else if (k.startsWith('$')) continue;
      else if (isPlainObject(v) && Object.keys(v).some((x) => x.startsWith('$'))) {
        if ('$eq' in v) set[k] = v.$eq;
      } else set[k] = v;
    }
  };
  collect(query);
  return Object.keys(set).length ? applyOperatorUpdate({}, { $set: set }, { isInsert: true }) : {};
}
