/**
 * Update operators ($set, $inc, $push, …) applied to one document.
 *
 * Written by hand rather than with mingo's updater because a faithful server has to fail the way
 * MongoDB fails: mingo silently ignores `$inc` on a string, adds an int64 and a number as
 * unrelated objects, and does not detect conflicting paths or changes to `_id`. Here every
 * operator keeps BSON number types (int32 + int32 overflowing becomes int64, int64 stays int64)
 * and type errors carry MongoDB's codes. Matching inside `$pull` is delegated to mingo.
 */
import { Decimal128, Double, Int32, Long, Timestamp } from 'bson';
import { Query } from 'mingo';
import { compareValues, canonicalKey, valuesEqual, toNumber } from './bsonOrder.js';
import { cloneDoc, describeType, isPlainObject, numericView, type Doc } from './documents.js';
import { MongoCommandError } from './errors.js';

const OPERATORS = new Set([
  '$set', '$unset', '$inc', '$mul', '$min', '$max', '$setOnInsert', '$currentDate', '$rename',
  '$push', '$addToSet', '$pull', '$pullAll', '$pop',
]);

/** True when the update document uses operators; false when it is a replacement document. */
export function isOperatorUpdate(update: Doc): boolean {
  const keys = Object.keys(update);
  return keys.length > 0 && keys[0].startsWith('$');
}

/** Checks the update document's shape before any document is touched. */
export function validateUpdate(update: unknown): asserts update is Doc {
  if (Array.isArray(update)) {
    throw new MongoCommandError('NotImplemented', 'pipeline-style updates are not supported by the embedded store');
  }
  if (!isPlainObject(update)) throw new MongoCommandError('FailedToParse', 'Update argument must be either an object or an array');
  if (isOperatorUpdate(update)) {
    for (const [op, arg] of Object.entries(update)) {
      if (!OPERATORS.has(op)) {
        throw new MongoCommandError('FailedToParse', `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`);
      }
      if (!isPlainObject(arg)) throw new MongoCommandError('FailedToParse', `Modifiers operate on fields but we found type ${describeType(arg)} instead. For example: {$mod: {<field>: ...}} not {${op}: ${describeType(arg)}}`);
      for (const path of Object.keys(arg)) checkPath(path);
    }
    checkConflicts(update);
  } else {
    for (const k of Object.keys(update)) {
      if (k.startsWith('$')) throw new MongoCommandError('DollarPrefixedFieldName', `The dollar ($) prefixed field '${k}' in '${k}' is not allowed in the context of an update's replacement document.`);
    }
  }
}

function checkPath(path: string): void {
  if (path === '' || path.split('.').some((p) => p === '')) {
    throw new MongoCommandError('EmptyFieldName', `An update path '${path}' contains an empty field name, which is not allowed.`);
  }
  if (path.split('.').some((p) => p.startsWith('$'))) {
    throw new MongoCommandError('NotImplemented', `positional update operators are not supported by the embedded store (path '${path}')`);
  }
}

function checkConflicts(update: Doc): void {
  const seen: string[] = [];
  for (const [op, arg] of Object.entries(update)) {
    const paths = Object.keys(arg as Doc);
    if (op === '$rename') paths.push(...Object.values(arg as Doc).map(String));
    for (const p of paths) {
      for (const q of seen) {
        if (p === q || p.startsWith(`${q}.`) || q.startsWith(`${p}.`)) {
          throw new MongoCommandError('ConflictingUpdateOperators', `Updating the path '${p}' would create a conflict at '${q}'`);
        }
      }
      seen.push(p);
    }
  }
}

/** Applies an operator update and returns the new document (the input is not changed). */
export function applyOperatorUpdate(doc: Doc, update: Doc, opts: { isInsert: boolean; now?: Date }): Doc {
  const out = cloneDoc(doc);
  const now = opts.now ?? new Date();
  const steps: { op: string; path: string; value: unknown }[] = [];
  for (const [op, arg] of Object.entries(update)) {
    for (const [path, value] of Object.entries(arg as Doc)) steps.push({ op, path, value });
  }
  // Like MongoDB 5.0+, fields are processed in lexicographic order of their names (numeric names in
  // numeric order) whatever the operator, so new fields are appended in that order.
  const target = (s: (typeof steps)[number]) => (s.op === '$rename' && typeof s.value === 'string' ? s.value : s.path);
  steps.sort((x, y) => comparePaths(target(x), target(y)));
  for (const { op, path, value } of steps) applyOne(out, op, path, value, opts.isInsert, now);
  if (!opts.isInsert && '_id' in doc && (!('_id' in out) || canonicalKey(out._id) !== canonicalKey(doc._id))) {
    throw new MongoCommandError('ImmutableField', "Performing an update on the path '_id' would modify the immutable field '_id'");
  }
  return out;
}

function comparePaths(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const [x, y] = [pa[i], pb[i]];
    if (x === y) continue;
    if (/^\d+$/.test(x) && /^\d+$/.test(y) && Number(x) !== Number(y)) return Number(x) < Number(y) ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** Replaces a document, keeping its `_id` (which the replacement may repeat but not change). */
export function applyReplacement(doc: Doc, replacement: Doc): Doc {
  if ('_id' in replacement && '_id' in doc && canonicalKey(replacement._id) !== canonicalKey(doc._id)) {
    throw new MongoCommandError('ImmutableField', "After applying the update, the (immutable) field '_id' was found to have been altered to _id: " + String(replacement._id));
  }
  const out: Doc = { _id: doc._id };
  for (const [k, v] of Object.entries(replacement)) if (k !== '_id') out[k] = cloneDoc(v);
  return out;
}

function applyOne(doc: Doc, op: string, path: string, value: unknown, isInsert: boolean, now: Date): void {
  switch (op) {
    case '$set':
      return setPath(doc, path, cloneDoc(value));
    case '$setOnInsert':
      if (isInsert) setPath(doc, path, cloneDoc(value));
      return;
    case '$unset':
      return unsetPath(doc, path);
    case '$inc':
    case '$mul':
      return arithmetic(doc, op, path, value);
    case '$min':
    case '$max': {
      const cur = lookup(doc, path);
      const c = cur.exists ? compareValues(value, cur.value) : 0;
      if (!cur.exists || (op === '$min' ? c < 0 : c > 0)) setPath(doc, path, cloneDoc(value));
      return;
    }
    case '$currentDate': {
      const wantsTimestamp = isPlainObject(value) && value.$type === 'timestamp';
      if (isPlainObject(value) && value.$type !== 'timestamp' && value.$type !== 'date') {
        throw new MongoCommandError('BadValue', "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}");
      }
      return setPath(doc, path, wantsTimestamp ? Timestamp.fromNumber(Math.floor(now.getTime() / 1000) * 2 ** 32) : new Date(now));
    }
    case '$rename': {
      if (typeof value !== 'string') throw new MongoCommandError('BadValue', `The 'to' field for $rename must be a string: ${path}: ${String(value)}`);
      const cur = lookup(doc, path);
      if (!cur.exists) return;
      unsetPath(doc, path);
      return setPath(doc, value, cur.value);
    }
    case '$push':
    case '$addToSet':
      return addToArray(doc, op, path, value);
    case '$pull':
    case '$pullAll':
      return pullFromArray(doc, op, path, value);
    case '$pop': {
      const cur = lookup(doc, path);
      if (!cur.exists) return;
      if (!Array.isArray(cur.value)) throw new MongoCommandError('TypeMismatch', `Path '${path}' contains an element of non-array type '${describeType(cur.value)}'`);
      const arr = [...cur.value];
      if (toNumber(value) === -1) arr.shift();
      else arr.pop();
      return setPath(doc, path, arr);
    }
  }
}

function arithmetic(doc: Doc, op: '$inc' | '$mul', path: string, arg: unknown): void {
  if (!isNumeric(arg)) {
    throw new MongoCommandError('TypeMismatch', `Cannot ${op === '$inc' ? 'increment' : 'multiply'} with non-numeric argument: {${path}: ${JSON.stringify(arg)}}`);
  }
  const cur = lookup(doc, path);
  if (!cur.exists) {
    // MongoDB sets a missing field to the argument ($inc) or to zero of the argument's type ($mul).
    setPath(doc, path, op === '$inc' ? arg : zeroLike(arg));
    return;
  }
  if (!isNumeric(cur.value)) {
    throw new MongoCommandError('TypeMismatch', `Cannot apply ${op} to a value of non-numeric type. {_id: ${String(doc._id)}} has the field '${path}' of non-numeric type ${describeType(cur.value)}`);
  }
  setPath(doc, path, combine(cur.value, arg, op === '$inc' ? 'add' : 'mul'));
}

function isNumeric(v: unknown): boolean {
  return typeof v === 'number' || v instanceof Double || v instanceof Int32 || v instanceof Decimal128 || (v instanceof Long && !(v instanceof Timestamp));
}

function zeroLike(v: unknown): unknown {
  if (v instanceof Long) return Long.ZERO;
  if (v instanceof Decimal128) return Decimal128.fromString('0');
  return 0;
}

/** int32 ∘ int32 stays int32 unless it overflows (then int64, like MongoDB); int64 wins over int32; double wins over both. */
function combine(a: unknown, b: unknown, how: 'add' | 'mul'): unknown {
  if (a instanceof Decimal128 || b instanceof Decimal128) {
    const x = toNumber(a);
    const y = toNumber(b);
    return Decimal128.fromString(String(how === 'add' ? x + y : x * y));
  }
  const isDouble = (v: unknown) => v instanceof Double || (typeof v === 'number' && !Number.isInteger(v));
  if (isDouble(a) || isDouble(b)) {
    const x = toNumber(a);
    const y = toNumber(b);
    return how === 'add' ? x + y : x * y;
  }
  if (a instanceof Long || b instanceof Long) {
    const x = a instanceof Long ? a : Long.fromNumber(toNumber(a));
    const y = b instanceof Long ? b : Long.fromNumber(toNumber(b));
    return how === 'add' ? x.add(y) : x.multiply(y);
  }
  const r = how === 'add' ? toNumber(a) + toNumber(b) : toNumber(a) * toNumber(b);
  if (r > 2147483647 || r < -2147483648) return Long.fromNumber(r);
  return r;
}

function addToArray(doc: Doc, op: '$push' | '$addToSet', path: string, value: unknown): void {
  const cur = lookup(doc, path);
  if (cur.exists && !Array.isArray(cur.value)) {
    throw new MongoCommandError('BadValue', `The field '${path}' must be an array but is of type ${describeType(cur.value)} in document {_id: ${String(doc._id)}}`);
  }
  const arr = cur.exists ? [...(cur.value as unknown[])] : [];
  const hasEach = isPlainObject(value) && '$each' in value;
  const items = hasEach ? (value as Doc).$each : [value];
  if (!Array.isArray(items)) throw new MongoCommandError('BadValue', `The argument to $each in ${op} must be an array but it was of type: ${describeType(items)}`);
  if (op === '$addToSet') {
    for (const item of items) if (!arr.some((x) => valuesEqual(x, item))) arr.push(cloneDoc(item));
    setPath(doc, path, arr);
    return;
  }
  const mods = hasEach ? (value as Doc) : {};
  const position = mods.$position === undefined ? arr.length : toNumber(mods.$position);
  const at = position < 0 ? Math.max(0, arr.length + position) : Math.min(position, arr.length);
  arr.splice(at, 0, ...items.map(cloneDoc));
  if (mods.$sort !== undefined) sortArray(arr, mods.$sort);
  if (mods.$slice !== undefined) {
    const n = toNumber(mods.$slice);
    const sliced = n >= 0 ? arr.slice(0, n) : arr.slice(n);
    setPath(doc, path, sliced);
    return;
  }
  setPath(doc, path, arr);
}

function sortArray(arr: unknown[], spec: unknown): void {
  if (isPlainObject(spec)) {
    const fields = Object.entries(spec);
    arr.sort((x, y) => {
      for (const [f, dir] of fields) {
        const c = compareValues(lookup(x as Doc, f).value, lookup(y as Doc, f).value);
        if (c !== 0) return c * (toNumber(dir) < 0 ? -1 : 1);
      }
      return 0;
    });
  } else {
    const dir = toNumber(spec) < 0 ? -1 : 1;
    arr.sort((x, y) => compareValues(x, y) * dir);
  }
}

function pullFromArray(doc: Doc, op: '$pull' | '$pullAll', path: string, value: unknown): void {
  const cur = lookup(doc, path);
  if (!cur.exists) return;
  if (!Array.isArray(cur.value)) throw new MongoCommandError('BadValue', 'Cannot apply $pull to a non-array value');
  let keep: (x: unknown) => boolean;
  if (op === '$pullAll') {
    if (!Array.isArray(value)) throw new MongoCommandError('BadValue', `$pullAll requires an array argument but was given a ${describeType(value)}`);
    keep = (x) => !value.some((v) => valuesEqual(x, v));
  } else if (isPlainObject(value)) {
    const keys = Object.keys(value);
    const isOperatorCondition = keys.length > 0 && keys.every((k) => k.startsWith('$'));
    // `{$pull: {tags: {$in: [...]}}}` tests each element; `{$pull: {items: {a: 1}}}` matches element documents.
    const q = new Query(numericView(isOperatorCondition ? { v: value } : value));
    keep = isOperatorCondition ? (x) => !q.test({ v: numericView(x) }) : (x) => !(isPlainObject(x) && q.test(numericView(x)));
  } else {
    keep = (x) => !valuesEqual(x, value);
  }
  setPath(doc, path, cur.value.filter(keep));
}

function lookup(doc: Doc, path: string): { exists: boolean; value: unknown } {
  let v: unknown = doc;
  for (const p of path.split('.')) {
    if (Array.isArray(v) && /^\d+$/.test(p) && Number(p) < v.length) v = v[Number(p)];
    else if (isPlainObject(v) && Object.prototype.hasOwnProperty.call(v, p)) v = v[p];
    else return { exists: false, value: undefined };
  }
  return { exists: true, value: v };
}

function setPath(doc: Doc, path: string, value: unknown): void {
  const parts = path.split('.');
  let parent: Doc | unknown[] = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const p = parts[i];
    let next: unknown = Array.isArray(parent) ? parent[Number(p)] : parent[p];
    if (next === undefined) {
      next = {};
      assign(parent, p, next, path);
    } else if (!isPlainObject(next) && !Array.isArray(next)) {
      throw new MongoCommandError('PathNotViable', `Cannot create field '${parts[i + 1]}' in element {${p}: ${JSON.stringify(next)}}`);
    }
    parent = next as Doc | unknown[];
  }
  assign(parent, parts[parts.length - 1], value, path);
}

function assign(parent: Doc | unknown[], key: string, value: unknown, path: string): void {
  if (Array.isArray(parent)) {
    if (!/^\d+$/.test(key)) throw new MongoCommandError('PathNotViable', `Cannot create field '${key}' in element {${path}: array}`);
    const idx = Number(key);
    while (parent.length < idx) parent.push(null);
    parent[idx] = value;
  } else {
    parent[key] = value;
  }
}

function unsetPath(doc: Doc, path: string): void {
  const parts = path.split('.');
  const parent = lookup(doc, parts.slice(0, -1).join('.'));
  const target = parts.length === 1 ? doc : parent.exists ? parent.value : undefined;
  const key = parts[parts.length - 1];
  if (Array.isArray(target) && /^\d+$/.test(key)) {
    // MongoDB keeps the array's length: an unset element becomes null.
    if (Number(key) < target.length) target[Number(key)] = null;
  } else if (isPlainObject(target)) {
    delete target[key];
  }
}
