import { Query } from 'mingo';
import { ID_INDEX } from '../collection.js';
import { MongoCommandError } from '../errors.js';
import { collectionName, optionalDoc, optionalNumber, refuseUnsupported, type CommandHandler } from './context.js';

export const listCollections: CommandHandler = (cmd, ctx) => {
  const filter = optionalDoc(cmd, 'filter') ?? {};
  const all = ctx.catalog.collections(ctx.db).map((c) =>
    cmd.nameOnly === true
      ? { name: c.name, type: 'collection' }
      : { name: c.name, type: 'collection', options: {}, info: { readOnly: false }, idIndex: { ...ID_INDEX } },
  );
  const matching = new Query(filter).find(all).all() as Record<string, unknown>[];
  const batchSize = optionalNumber(optionalDoc(cmd, 'cursor') ?? {}, 'batchSize');
  return ctx.cursors.first(`${ctx.db}.$cmd.listCollections`, matching, batchSize) as unknown as Record<string, unknown>;
};

/** `create`: an explicit, empty collection; capped collections, views and validators are out of scope. */
export const create: CommandHandler = (cmd, ctx) => {
  const name = collectionName(cmd, 'create');
  refuseUnsupported(cmd, ['capped', 'viewOn', 'validator', 'timeseries', 'clusteredIndex', 'collation', 'changeStreamPreAndPostImages']);
  if (ctx.catalog.get(ctx.db, name)) throw new MongoCommandError('NamespaceExists', `Collection ${ctx.db}.${name} already exists.`);
  ctx.catalog.getOrCreate(ctx.db, name);
  return { ok: 1 };
};

/** `drop`: like MongoDB 7, dropping a missing collection succeeds. */
export const drop: CommandHandler = (cmd, ctx) => {
  const name = collectionName(cmd, 'drop');
  const coll = ctx.catalog.get(ctx.db, name);
  const nIndexesWas = coll?.indexSpecs().length ?? 0;
  ctx.catalog.drop(ctx.db, name);
  return { nIndexesWas, ns: `${ctx.db}.${name}`, ok: 1 };
};

export const dropDatabase: CommandHandler = (_cmd, ctx) => {
  ctx.catalog.dropDatabase(ctx.db);
  return { dropped: ctx.db, ok: 1 };
};
