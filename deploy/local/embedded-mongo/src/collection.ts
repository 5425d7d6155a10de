/** One collection: its documents keyed by `_id`, its indexes, and the writes that keep them in step. */
import { Query } from 'mingo';
import { BSONRegExp } from 'bson';
import { Bracket, BracketBound, canonicalKey, compareValues } from './bsonOrder.js';
import { hasWideNumbers, numericView, type Doc } from './documents.js';
import { MongoCommandError } from './errors.js';
import { Index, sameIndex, type IndexSpec } from './indexes.js';
import { planCandidates } from './planner.js';

/** Where a collection reports every change, so the journal can make it durable. */
export interface ChangeSink {
  put(db: string, coll: string, doc: Doc): void;
  del(db: string, coll: string, id: unknown): void;
  index(db: string, coll: string, spec: IndexSpec): void;
  dropIndex(db: string, coll: string, name: string): void;
}

export const ID_INDEX: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

export class Collection {
  private readonly docs = new Map<string, Doc>();
  private readonly indexes = new Map<string, Index>();
  /** Documents holding int64/decimal values, which must be matched through a numeric view. */
  private readonly wide = new WeakSet<Doc>();

  constructor(
    readonly db: string,
    readonly name: string,
    private readonly sink: ChangeSink,
  ) {
    this.indexes.set(ID_INDEX.name, new Index(ID_INDEX));
  }

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  get size(): number {
    return this.docs.size;
  }

  /** All documents in natural (insertion) order. */
  all(): IterableIterator<Doc> {
    return this.docs.values();
  }

  indexSpecs(): IndexSpec[] {
    return [...this.indexes.values()].map((i) => i.spec);
  }

  getById(id: unknown): Doc | undefined {
    return this.docs.get(canonicalKey(id));
  }

  /** Documents matching a filter; uses an index when one fits. */
  find(filter: Doc): Doc[] {
    const query = new Query(numericView(filter));
    const test = (d: Doc) => query.test(this.wide.has(d) ? numericView(d) : d);
    const idOnly = this.idLookup(filter);
    if (idOnly !== undefined) return idOnly && test(idOnly) ? [idOnly] : [];
    const ids = planCandidates(filter, [...this.indexes.values()]);
    const out: Doc[] = [];
    if (ids) {
      for (const id of ids) {
        const d = this.docs.get(id);
        if (d && test(d)) out.push(d);
      }
    } else {
      for (const d of this.docs.values()) if (test(d)) out.push(d);
    }
    return out;
  }

  /** Fast path for `{_id: value}`: the document, null if absent, undefined if the filter is not that shape. */
  private idLookup(filter: Doc): Doc | null | undefined {
    if (!('_id' in filter)) return undefined;
    const v = filter._id;
    if (v === null || typeof v !== 'object' || v instanceof Date || (v.constructor !== Object && !Array.isArray(v) && !(v instanceof RegExp) && !(v instanceof BSONRegExp))) {
      return this.docs.get(canonicalKey(v)) ?? null;
    }
    return undefined;
  }

  /** Inserts a new document (with `_id` already set); checks every unique index before changing anything. */
  insert(doc: Doc, opts: { replay?: boolean } = {}): void {
    const id = canonicalKey(doc._id);
    const keys = this.keysOf(doc);
    if (!opts.replay) {
      if (this.docs.has(id)) throw this.indexes.get('_id_')!.duplicateKeyError(this.ns, [doc._id]);
      this.checkUnique(id, keys);
    }
    const previous = this.docs.get(id);
    if (previous) this.unindex(id, previous);
    this.store(id, doc, keys);
    if (!opts.replay) this.sink.put(this.db, this.name, doc);
  }

  /** Replaces a stored document by a new version with the same `_id`. */
  replace(oldDoc: Doc, newDoc: Doc): void {
    const id = canonicalKey(oldDoc._id);
    const keys = this.keysOf(newDoc);
    this.checkUnique(id, keys);
    this.unindex(id, oldDoc);
    this.store(id, newDoc, keys);
    this.sink.put(this.db, this.name, newDoc);
  }

  remove(doc: Doc, opts: { replay?: boolean } = {}): void {
    const id = canonicalKey(doc._id);
    const stored = this.docs.get(id);
    if (!stored) return;
    this.unindex(id, stored);
    this.docs.delete(id);
    if (!opts.replay) this.sink.del(this.db, this.name, doc._id);
  }

  /** Creates an index; returns false if an identical one exists. Refuses a unique index over duplicates. */
  createIndex(spec: IndexSpec, opts: { replay?: boolean } = {}): boolean {
    const existing = this.indexes.get(spec.name);
    if (existing) {
      if (sameIndex(existing.spec, spec)) return false;
      throw new MongoCommandError('IndexKeySpecsConflict', `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(existing.spec)}`);
    }
    for (const other of this.indexes.values()) {
      if (JSON.stringify(other.spec.key) === JSON.stringify(spec.key)) {
        if (sameIndex(other.spec, spec)) throw new MongoCommandError('IndexOptionsConflict', `Index already exists with a different name: ${other.spec.name}`);
        throw new MongoCommandError('IndexOptionsConflict', `An equivalent index already exists with a different name and options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(other.spec)}`);
      }
    }
    const index = new Index(spec);
    for (const [id, doc] of this.docs) {
      const keys = index.keysOf(doc);
      if (!opts.replay) {
        const conflict = index.findConflict(id, keys);
        if (conflict) throw index.duplicateKeyError(this.ns, conflict.vals);
      }
      index.add(id, keys);
    }
    this.indexes.set(spec.name, index);
    if (!opts.replay) this.sink.index(this.db, this.name, spec);
    return true;
  }

  dropIndex(name: string, opts: { replay?: boolean } = {}): void {
    if (name === '_id_') throw new MongoCommandError('InvalidOptions', 'cannot drop _id index');
    if (!this.indexes.delete(name)) throw new MongoCommandError('IndexNotFound', `index not found with name [${name}]`);
    if (!opts.replay) this.sink.dropIndex(this.db, this.name, name);
  }

  findIndexByKey(key: Doc): IndexSpec | undefined {
    const wanted = JSON.stringify(key);
    return [...this.indexes.values()].find((i) => JSON.stringify(i.spec.key) === wanted)?.spec;
  }

  /** Documents whose TTL index field holds a date older than the index's lifetime. */
  expired(now: number): Doc[] {
    const out = new Map<string, Doc>();
    for (const index of this.indexes.values()) {
      const ttl = index.spec.expireAfterSeconds;
      if (ttl === undefined) continue;
      const ids = new Set<string>();
      index.idsInRange(10 /* Date bracket */, null, { value: new Date(now - ttl * 1000), inclusive: false }, ids);
      for (const id of ids) {
        const d = this.docs.get(id);
        if (d) out.set(id, d);
      }
    }
    return [...out.values()];
  }

  private keysOf(doc: Doc): Map<Index, unknown[][]> {
    const keys = new Map<Index, unknown[][]>();
    for (const index of this.indexes.values()) keys.set(index, index.keysOf(doc));
    return keys;
  }

  private checkUnique(id: string, keys: Map<Index, unknown[][]>): void {
    for (const [index, k] of keys) {
      if (index.spec.name === '_id_') continue;
      const conflict = index.findConflict(id, k);
      if (conflict) throw index.duplicateKeyError(this.ns, conflict.vals);
    }
  }

  private store(id: string, doc: Doc, keys: Map<Index, unknown[][]>): void {
    for (const [index, k] of keys) index.add(id, k);
    this.docs.set(id, doc);
    if (hasWideNumbers(doc)) this.wide.add(doc);
  }

  private unindex(id: string, doc: Doc): void {
    for (const index of this.indexes.values()) index.remove(id, index.keysOf(doc));
  }
}

/** Sorts documents by a MongoDB sort spec; an array field sorts by its smallest (ascending) or largest (descending) element. */
export function sortDocs(docs: Doc[], sort: Doc | undefined): Doc[] {
  if (!sort || Object.keys(sort).length === 0) return docs;
  const fields = Object.entries(sort).map(([path, dir]) => {
    const n = typeof dir === 'number' ? dir : Number(dir);
    if (n !== 1 && n !== -1) throw new MongoCommandError('BadValue', `$sort key ordering must be 1 (for ascending) or -1 (for descending)`);
    return { path, dir: n };
  });
  const keyCache = new Map<Doc, unknown[]>();
  const keyOf = (d: Doc): unknown[] => {
    let k = keyCache.get(d);
    if (!k) {
      k = fields.map(({ path, dir }) => sortKey(d, path, dir));
      keyCache.set(d, k);
    }
    return k;
  };
  return [...docs].sort((a, b) => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    for (let i = 0; i < fields.length; i++) {
      const c = compareValues(ka[i], kb[i]);
      if (c !== 0) return c * fields[i].dir;
    }
    return 0;
  });
}

const EMPTY_ARRAY_SORT_KEY = new BracketBound(Bracket.Null, -1);

function sortKey(doc: Doc, path: string, dir: number): unknown {
  let v: unknown = doc;
  for (const p of path.split('.')) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && p in (v as Doc)) v = (v as Doc)[p];
    else if (Array.isArray(v)) v = v.map((x) => (x !== null && typeof x === 'object' ? (x as Doc)[p] : undefined)).filter((x) => x !== undefined);
    else return null;
  }
  if (Array.isArray(v)) {
    // An empty array sorts before null and missing fields, in both directions.
    if (v.length === 0) return EMPTY_ARRAY_SORT_KEY;
    return v.reduce((m, x) => (compareValues(x, m) * dir < 0 ? x : m));
  }
  return v === undefined ? null : v;
}
