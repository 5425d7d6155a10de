/** Databases and their collections; turns every change into a journal record when durable. */
import { Collection, ID_INDEX, type ChangeSink } from './collection.js';
import type { Doc } from './documents.js';
import { encodePutRecord, putRecordWriter } from './encodePutRecord.js';
import { MongoCommandError } from './errors.js';
import type { IndexSpec } from './indexes.js';
import type { RecordWriter } from './journal.js';
import { memoryTable, type DocumentSpill } from './spillDocuments.js';

export interface RecordSink {
  append(record: Doc | Uint8Array): void;
}

export class Catalog implements ChangeSink {
  private readonly dbs = new Map<string, Map<string, Collection>>();
  /** Set once the journal is open; records are dropped while memory-only or replaying. */
  journal: RecordSink | null = null;

  /** With a spill, documents not written lately are kept on disk instead of in memory. */
  constructor(private readonly spill: DocumentSpill | null = null) {}

  get(db: string, name: string): Collection | undefined {
    return this.dbs.get(db)?.get(name);
  }

  /** The collection, created (and journaled) on first use, as MongoDB does on first write. */
  getOrCreate(db: string, name: string): Collection {
    const existing = this.get(db, name);
    if (existing) return existing;
    checkCollectionName(db, name);
    const coll = new Collection(db, name, this, this.spill ? this.spill.table() : memoryTable());
    let colls = this.dbs.get(db);
    if (!colls) this.dbs.set(db, (colls = new Map()));
    colls.set(name, coll);
    this.journal?.append({ op: 'create', db, coll: name });
    return coll;
  }

  collections(db: string): Collection[] {
    return [...(this.dbs.get(db)?.values() ?? [])];
  }

  databases(): string[] {
    return [...this.dbs.keys()];
  }

  drop(db: string, name: string): boolean {
    const colls = this.dbs.get(db);
    const coll = colls?.get(name);
    if (!colls || !coll) return false;
    colls.delete(name);
    coll.discard();
    if (colls.size === 0) this.dbs.delete(db);
    this.journal?.append({ op: 'drop', db, coll: name });
    return true;
  }

  dropDatabase(db: string): void {
    const colls = this.dbs.get(db);
    if (!colls) return;
    this.dbs.delete(db);
    for (const coll of colls.values()) coll.discard();
    this.journal?.append({ op: 'dropDatabase', db });
  }

  put(db: string, coll: string, raw: Uint8Array): void {
    this.journal?.append(encodePutRecord(db, coll, raw));
  }

  del(db: string, coll: string, id: unknown): void {
    this.journal?.append({ op: 'del', db, coll, id });
  }

  index(db: string, coll: string, spec: IndexSpec): void {
    this.journal?.append({ op: 'index', db, coll, spec: { ...spec } });
  }

  dropIndex(db: string, coll: string, name: string): void {
    this.journal?.append({ op: 'dropIndex', db, coll, name });
  }

  /** Applies a journal or snapshot record (journal must be unset while replaying). */
  apply(r: Doc): void {
    const db = String(r.db);
    const coll = String(r.coll);
    switch (r.op) {
      case 'create':
        this.getOrCreate(db, coll);
        return;
      case 'drop':
        this.drop(db, coll);
        return;
      case 'dropDatabase':
        this.dropDatabase(db);
        return;
      case 'put':
        this.getOrCreate(db, coll).insert(r.doc as Doc, { replay: true });
        return;
      case 'del': {
        const c = this.get(db, coll);
        const d = c?.getById(r.id);
        if (c && d) c.remove(d, { replay: true });
        return;
      }
      case 'index':
        this.getOrCreate(db, coll).createIndex(r.spec as IndexSpec, { replay: true });
        return;
      case 'dropIndex': {
        const c = this.get(db, coll);
        if (c && c.indexSpecs().some((s) => s.name === r.name)) c.dropIndex(String(r.name), { replay: true });
        return;
      }
      default:
        throw new Error(`unknown journal record ${String(r.op)}`);
    }
  }

  /**
   * Records that rebuild the current state from nothing (the content of a snapshot). The list of
   * collections and their indexes is fixed now; each document is read only when the snapshot
   * writer reaches it, so a snapshot never holds a second copy of the store in memory. A document
   * changed after this call may be written in its newer version, or twice: that is harmless,
   * because every change from now on is also in the next journal, which replays after the
   * snapshot and ends with the same state (records are physical).
   */
  capture(): Iterable<Doc | RecordWriter> {
    const parts: { db: string; name: string; specs: IndexSpec[]; coll: Collection }[] = [];
    for (const [db, colls] of this.dbs) {
      for (const [name, coll] of colls) parts.push({ db, name, specs: coll.indexSpecs(), coll });
    }
    return (function* () {
      for (const { db, name, specs, coll } of parts) {
        yield { op: 'create', db, coll: name };
        for (const spec of specs) if (spec.name !== ID_INDEX.name) yield { op: 'index', db, coll: name, spec: { ...spec } };
        for (const doc of coll.storedDocuments()) yield putRecordWriter(db, name, doc);
      }
    })();
  }
}

function checkCollectionName(db: string, name: string): void {
  if (!db || /[/\\. "$\0]/.test(db)) throw new MongoCommandError('InvalidNamespace', `Invalid database name: '${db}'`);
  if (!name || name.includes('$') || name.includes('\0') || name.startsWith('.') || name.startsWith('system.')) {
    throw new MongoCommandError('InvalidNamespace', `Invalid collection name: ${name}`);
  }
}
