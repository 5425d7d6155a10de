import { isPlainObject } from '../documents.js';
import { MongoCommandError } from '../errors.js';
import { parseIndexSpec } from '../indexes.js';
import { collectionName, optionalDoc, optionalNumber, requireArray, type CommandHandler } from './context.js';

/** `createIndexes`: all-or-nothing; identical existing indexes are a no-op. */
export const createIndexes: CommandHandler = (cmd, ctx) => {
  const name = collectionName(cmd, 'createIndexes');
  const specs = requireArray(cmd, 'indexes').map(parseIndexSpec);
  const existed = ctx.catalog.get(ctx.db, name) !== undefined;
  const coll = ctx.catalog.getOrCreate(ctx.db, name);
  const before = coll.indexSpecs().length;
  const created: string[] = [];
  try {
    for (const spec of specs) if (coll.createIndex(spec)) created.push(spec.name);
  } catch (err) {
    // A later spec failed (e.g. duplicates under a new unique index): undo this command's earlier ones.
    for (const n of created) coll.dropIndex(n);
    throw err;
  }
  const reply: Record<string, unknown> = {
    numIndexesBefore: before,
    numIndexesAfter: coll.indexSpecs().length,
    createdCollectionAutomatically: !existed,
  };
  if (created.length === 0) reply.note = 'all indexes already exist';
  reply.ok = 1;
  return reply;
};

export const listIndexes: CommandHandler = (cmd, ctx) => {
  const name = collectionName(cmd, 'listIndexes');
  const coll = ctx.catalog.get(ctx.db, name);
  if (!coll) throw new MongoCommandError('NamespaceNotFound', `ns does not exist: ${ctx.db}.${name}`);
  const batchSize = optionalNumber(optionalDoc(cmd, 'cursor') ?? {}, 'batchSize');
  const specs = coll.indexSpecs().map((s) => ({ ...s }));
  return ctx.cursors.first(coll.ns, specs, batchSize) as unknown as Record<string, unknown>;
};

/** `dropIndexes`: by name, by key pattern, a list of names, or `"*"` (all but `_id_`). */
export const dropIndexes: CommandHandler = (cmd, ctx) => {
  const name = collectionName(cmd, 'dropIndexes');
  const coll = ctx.catalog.get(ctx.db, name);
  if (!coll) throw new MongoCommandError('NamespaceNotFound', `ns not found ${ctx.db}.${name}`);
  const nIndexesWas = coll.indexSpecs().length;
  const which = cmd.index;
  let names: string[];
  if (which === '*') names = coll.indexSpecs().map((s) => s.name).filter((n) => n !== '_id_');
  else if (typeof which === 'string') names = [which];
  else if (Array.isArray(which) && which.every((w) => typeof w === 'string')) names = which as string[];
  else if (isPlainObject(which)) {
    const spec = coll.findIndexByKey(which);
    if (!spec) throw new MongoCommandError('IndexNotFound', `can't find index with key: ${JSON.stringify(which)}`);
    names = [spec.name];
  } else throw new MongoCommandError('TypeMismatch', "BSON field 'index' must be a string, an array of strings or an object");
  for (const n of names) if (!coll.indexSpecs().some((s) => s.name === n)) throw new MongoCommandError('IndexNotFound', `index not found with name [${n}]`);
  for (const n of names) coll.dropIndex(n);
  return { nIndexesWas, ok: 1 };
};
