import { collectionName, optionalDoc, optionalNumber, project, refuseUnsupported, type CommandHandler } from './context.js';

/** `find`: filter, sort, skip, limit, projection, then a cursor over the result. */
export const find: CommandHandler = (cmd, ctx) => {
  const name = collectionName(cmd, 'find');
  const filter = optionalDoc(cmd, 'filter') ?? {};
  const sort = optionalDoc(cmd, 'sort');
  const projection = optionalDoc(cmd, 'projection');
  const skip = optionalNumber(cmd, 'skip') ?? 0;
  const rawLimit = optionalNumber(cmd, 'limit') ?? 0;
  const batchSize = optionalNumber(cmd, 'batchSize');
  refuseUnsupported(cmd, ['collation', 'tailable', 'awaitData', 'min', 'max', 'returnKey', 'showRecordId']);
  const coll = ctx.catalog.get(ctx.db, name);
  // A negative limit is the legacy spelling of "limit, and close the cursor after one batch".
  const limit = Math.abs(rawLimit);
  let docs = coll ? coll.find(filter, { sort, limit: limit > 0 ? skip + limit : 0 }) : [];
  if (skip > 0) docs = docs.slice(skip);
  if (limit > 0) docs = docs.slice(0, limit);
  const singleBatch = cmd.singleBatch === true || rawLimit < 0;
  return ctx.cursors.first(`${ctx.db}.${name}`, project(docs, projection), batchSize === 0 ? undefined : batchSize, singleBatch) as unknown as Record<string, unknown>;
};
