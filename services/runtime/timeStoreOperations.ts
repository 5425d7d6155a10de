/**
 * Times store operations into store_operation_duration_seconds{operation=<MongoDB command>} at
 * the driver's collection API, not through its command monitoring.
 *
 * Why not command monitoring (monitorCommands): with it on, the driver copies every command for
 * its "started" event and deserializes every reply a second time, whole, for its "succeeded"
 * event, even when nobody reads either: about 4 % of the ceremony service's CPU per passkey login
 * (three alternating runs each way, against the gateway's CPU as the control). The driver has no
 * cheaper hook that names the command, so each collection method is mapped to the command it sends.
 *
 * What is counted: one operation per call of a mapped method (a failed one too), and for a cursor
 * (find, aggregate, listIndexes) one when it is read with toArray() or explain(), the only ways
 * the services read cursors. A result too large for the first batch (over 101 documents) takes
 * further getMore round trips that are not counted separately; no hot query returns that many.
 * Methods the services do not use (change streams, search indexes, bulk builders) pass through
 * untimed.
 */
import type { AbstractCursor, Collection, Db, Document } from 'mongodb';

export type ObserveStoreOperation = (operation: string, seconds: number) => void;

/** The command each promise-returning Collection method sends. */
const COMMAND_OF: Readonly<Record<string, string>> = {
  insertOne: 'insert',
  insertMany: 'insert',
  // One command per run of same-kind writes; named after the method, as it may be several.
  bulkWrite: 'bulkWrite',
  updateOne: 'update',
  updateMany: 'update',
  replaceOne: 'update',
  deleteOne: 'delete',
  deleteMany: 'delete',
  findOne: 'find',
  findOneAndUpdate: 'findAndModify',
  findOneAndReplace: 'findAndModify',
  findOneAndDelete: 'findAndModify',
  countDocuments: 'aggregate',
  estimatedDocumentCount: 'count',
  count: 'count',
  distinct: 'distinct',
  createIndex: 'createIndexes',
  createIndexes: 'createIndexes',
  dropIndex: 'dropIndexes',
  dropIndexes: 'dropIndexes',
  drop: 'drop',
  rename: 'renameCollection',
  indexes: 'listIndexes',
  indexExists: 'listIndexes',
  indexInformation: 'listIndexes',
  options: 'listCollections',
  isCapped: 'listCollections',
};

/** The command of each cursor-returning Collection method, timed when the cursor is read. */
const CURSOR_COMMAND_OF: Readonly<Record<string, string>> = {
  find: 'find',
  aggregate: 'aggregate',
  listIndexes: 'listIndexes',
};

async function timed<T>(operation: string, observe: ObserveStoreOperation, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    observe(operation, (performance.now() - started) / 1000);
  }
}

/** Times the cursor's toArray() and explain() (each sends its command) on the instance itself. */
function timeCursor<C extends AbstractCursor>(cursor: C, operation: string, observe: ObserveStoreOperation): C {
  const target = cursor as unknown as { toArray: () => Promise<unknown>; explain?: (...args: unknown[]) => Promise<unknown> };
  const toArray = target.toArray;
  target.toArray = () => timed(operation, observe, () => toArray.call(cursor));
  const explain = target.explain;
  if (explain) target.explain = (...args) => timed('explain', observe, () => explain.apply(cursor, args));
  return cursor;
}

/** The collection with its command-sending methods timed; wrappers are made once per method. */
function timeCollection<T extends Document>(collection: Collection<T>, observe: ObserveStoreOperation): Collection<T> {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(collection, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      const command = COMMAND_OF[prop];
      const cursorCommand = CURSOR_COMMAND_OF[prop];
      // Called on the collection itself, as the driver's own code expects of `this`.
      if (command === undefined && cursorCommand === undefined) return (value as (...args: unknown[]) => unknown).bind(target);
      let fn = wrapped.get(prop);
      if (fn === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        fn =
          command !== undefined
            ? (...args: unknown[]) => timed(command, observe, () => method.apply(target, args) as Promise<unknown>)
            : (...args: unknown[]) => timeCursor(method.apply(target, args) as AbstractCursor, cursorCommand, observe);
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}

/**
 * The database with every collection it hands out timed, and db.command() timed under the
 * command's name (its first key, e.g. "ping").
 */
export function timeStoreOperations(db: Db, observe: ObserveStoreOperation): Db {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'collection') {
        return (name: string, options?: Parameters<Db['collection']>[1]) => timeCollection(target.collection(name, options), observe);
      }
      if (prop === 'command') {
        return (command: Document, options?: Parameters<Db['command']>[1]) => timed(Object.keys(command)[0] ?? 'command', observe, () => target.command(command, options));
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
