/** One collection: its documents (as BSON) keyed by `_id`, its indexes, and the writes that keep them in step. */
import { Query } from 'mingo';
import { deserialize, serialize } from 'bson';
import { Bracket, BracketBound, compareValues } from './bsonOrder.js';
import { hasWideNumbers, numericView, type Doc } from './documents.js';
import { documentKey, flatString } from './encodeIndexKey.js';
import { MongoCommandError } from './errors.js';
import { matchPlainFilter } from './matchPlainFilter.js';
import { Index, sameIndex, type DocKeys, type IndexSpec } from './indexes.js';
import { BSON_READ_OPTIONS } from './journal.js';
import { planQuery, type IndexPlan, type QueryPlan } from './planner.js';
import { memoryTable, type DocumentTable, type StoredDocument } from './spillDocuments.js';

/** Where a collection reports every change, so the journal can make it durable. */
export interface ChangeSink {
  /** `raw` is the document's BSON, as stored. */
  put(db: string, coll: string, raw: Uint8Array): void;
  del(db: string, coll: string, id: unknown): void;
  index(db: string, coll: string, spec: IndexSpec): void;
  dropIndex(db: string, coll: string, name: string): void;
}

export const ID_INDEX: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

export interface QueryOptions {
  sort?: Doc;
  /** How many documents the caller needs after sorting (skip + limit); 0 or absent for all. */
  limit?: number;
}

/** What a query returned and what it cost, for explain. */
export interface QueryRun {
  docs: Doc[];
  plan: QueryPlan;
  keysExamined: number;
  docsExamined: number;
}

export class Collection {
  /** Documents as BSON, keyed by canonical `_id` (in memory or spilled: spillDocuments.ts). */
  private readonly docs: DocumentTable;
  private readonly indexes = new Map<string, Index>();

  constructor(
    readonly db: string,
    readonly name: string,
    private readonly sink: ChangeSink,
    docs: DocumentTable = memoryTable(),
  ) {
    this.docs = docs;
    this.indexes.set(ID_INDEX.name, new Index(ID_INDEX));
  }

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  get size(): number {
    return this.docs.size;
  }

  /** All documents in natural (insertion) order. */
  *all(): Generator<Doc> {
    for (const [, raw] of this.docs.entries()) yield decode(raw);
  }

  /**
   * Every document's BSON, read as the iteration reaches it (for a snapshot, which may take a
   * while: documents changed meanwhile are also in the next journal, which replays after it).
   */
  storedDocuments(): Iterable<StoredDocument> {
    return this.docs.storedDocuments();
  }

  /** Lets go of every document (the collection was dropped). */
  discard(): void {
    this.docs.discard();
  }

  indexSpecs(): IndexSpec[] {
    return [...this.indexes.values()].map((i) => i.spec);
  }

  getById(id: unknown): Doc | undefined {
    const raw = this.docs.get(documentKey(id));
    return raw === undefined ? undefined : decode(raw);
  }

  /** Documents matching a filter (sorted and cut to `limit` when asked); uses an index when one fits. */
  find(filter: Doc, opts: QueryOptions = {}): Doc[] {
    return this.query(filter, opts).docs;
  }

  /** Runs a filter through the plan the planner picks; the docs come back sorted and cut to `limit` when asked. */
  query(filter: Doc, opts: QueryOptions = {}): QueryRun {
    const plain = matchPlainFilter(filter);
    // Compiled at once when needed, so a malformed filter fails even when nothing is examined.
    let matcher = plain ? null : new Query(numericView(filter));
    const test = (d: Doc) => {
      const decided = plain?.(d);
      if (decided !== undefined) return decided;
      matcher ??= new Query(numericView(filter));
      return matcher.test(hasWideNumbers(d) ? numericView(d) : d);
    };
    const sort = opts.sort && Object.keys(opts.sort).length ? opts.sort : undefined;
    const limit = opts.limit && opts.limit > 0 ? opts.limit : 0;
    const plan = planQuery(filter, [...this.indexes.values()], sort);
    const run: QueryRun = { docs: [], plan, keysExamined: 0, docsExamined: 0 };
    const out: Doc[] = [];
    if (plan.kind === 'idhack') {
      run.keysExamined = 1;
      const d = this.getById(plan.id);
      if (d) {
        run.docsExamined = 1;
        if (test(d)) out.push(d);
      }
    } else if (plan.kind === 'ixscan') {
      this.scanIndex(plan, test, limit, out, run);
    } else {
      for (const [, raw] of this.docs.entries()) {
        run.docsExamined++;
        const d = decode(raw);
        if (!test(d)) continue;
        out.push(d);
        if (limit && !sort && out.length >= limit) break;
      }
    }
    let docs = sort ? sortDocs(out, sort) : out;
    if (limit && docs.length > limit) docs = docs.slice(0, limit);
    run.docs = docs;
    return run;
  }

  /**
   * Walks a plan's intervals, testing each document once. With a limit it stops as soon as the
   * answer is certain: after `limit` matches when any order will do, or, when the scan yields
   * the sort order, at the first entry that sorts after the last match (ties are still read, so
   * the final sort can order them exactly as a collection scan would).
   */
  private scanIndex(plan: IndexPlan, test: (d: Doc) => boolean, limit: number, out: Doc[], run: QueryRun): void {
    const { index } = plan;
    const seen = index.multikey ? new Set<string>() : null;
    let lastGroup: string | null = null;
    for (const interval of plan.intervals) {
      for (const entry of index.entries(interval.low, interval.high, plan.reverse)) {
        run.keysExamined++;
        if (lastGroup !== null && !entry.startsWith(lastGroup)) return;
        const id = index.idOf(entry);
        if (seen) {
          if (seen.has(id)) continue;
          seen.add(id);
        }
        const raw = this.docs.get(id);
        if (!raw) continue;
        run.docsExamined++;
        const d = decode(raw);
        if (!test(d)) continue;
        out.push(d);
        if (!limit || out.length < limit || lastGroup !== null || !plan.sorted) continue;
        if (plan.sortPrefixFields === null) return;
        lastGroup = entry.slice(0, index.prefixEnd(entry, plan.sortPrefixFields));
      }
    }
  }

  /** Inserts a new document (with `_id` already set); checks every unique index before changing anything. */
  insert(doc: Doc, opts: { replay?: boolean } = {}): void {
    const id = flatString(documentKey(doc._id));
    const keys = this.keysOf(doc);
    if (!opts.replay) {
      if (this.docs.has(id)) throw this.indexes.get('_id_')!.duplicateValuesError(this.ns, [doc._id]);
      this.checkUnique(id, doc, keys);
    }
    const previous = this.docs.get(id);
    // (Replay of a later version: the same id, so the _id_ entry stays the collection's first key string.)
    if (previous) this.unindex(id, decode(previous), true);
    const raw = this.store(id, doc, keys);
    if (!opts.replay) this.sink.put(this.db, this.name, raw);
  }

  /** Replaces a stored document by a new version with the same `_id`. */
  replace(oldDoc: Doc, newDoc: Doc): void {
    const id = documentKey(oldDoc._id);
    const stored = this.docs.get(id);
    const keys = this.keysOf(newDoc);
    this.checkUnique(id, newDoc, keys);
    // The stored version, not the caller's copy, is what the indexes hold; the _id_ entry stays.
    this.unindex(id, stored ? decode(stored) : oldDoc, true);
    const raw = this.store(id, newDoc, keys);
    this.sink.put(this.db, this.name, raw);
  }

  remove(doc: Doc, opts: { replay?: boolean } = {}): void {
    const id = documentKey(doc._id);
    const stored = this.docs.get(id);
    if (!stored) return;
    this.unindex(id, decode(stored));
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
    for (const [id, raw] of this.docs.entries()) {
      const doc = decode(raw);
      const keys = index.keysOf(doc);
      if (!opts.replay) {
        const conflict = index.findConflict(id, keys);
        if (conflict !== null) throw index.duplicateKeyError(this.ns, doc, conflict);
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
    const ids = new Set<string>();
    for (const index of this.indexes.values()) {
      const ttl = index.spec.expireAfterSeconds;
      if (ttl !== undefined) index.idsBefore(new Date(now - ttl * 1000), ids);
    }
    const out: Doc[] = [];
    for (const id of ids) {
      const raw = this.docs.get(id);
      if (raw) out.push(decode(raw));
    }
    return out;
  }

  private keysOf(doc: Doc): Map<Index, DocKeys> {
    const keys = new Map<Index, DocKeys>();
    for (const index of this.indexes.values()) keys.set(index, index.keysOf(doc));
    return keys;
  }

  private checkUnique(id: string, doc: Doc, keys: Map<Index, DocKeys>): void {
    for (const [index, k] of keys) {
      if (index.spec.name === '_id_') continue;
      const conflict = index.findConflict(id, k);
      if (conflict !== null) throw index.duplicateKeyError(this.ns, doc, conflict);
    }
  }

  private store(id: string, doc: Doc, keys: Map<Index, DocKeys>): Buffer {
    const raw = serialize(doc) as Buffer;
    for (const [index, k] of keys) index.add(id, k);
    this.docs.set(id, raw);
    return raw;
  }

  private unindex(id: string, doc: Doc, keepIdEntry = false): void {
    for (const index of this.indexes.values()) if (!keepIdEntry || index.spec.name !== ID_INDEX.name) index.remove(id, index.keysOf(doc));
  }
}

function decode(raw: Buffer): Doc {
  return deserialize(raw, BSON_READ_OPTIONS);
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
