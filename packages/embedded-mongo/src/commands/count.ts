import { collectionName, optionalDoc, optionalNumber, type CommandHandler } from './context.js';

/** `count` (used by `estimatedDocumentCount`; `countDocuments` goes through aggregate). */
export const count: CommandHandler = (cmd, ctx) => {
  const coll = ctx.catalog.get(ctx.db, collectionName(cmd, 'count'));
  const query = optionalDoc(cmd, 'query');
  if (!coll) return { n: 0, ok: 1 };
  const skip = Math.max(0, optionalNumber(cmd, 'skip') ?? 0);
  const limit = Math.abs(optionalNumber(cmd, 'limit') ?? 0);
  let n = query && Object.keys(query).length ? coll.find(query, { limit: limit > 0 ? skip + limit : 0 }).length : coll.size;
  n = Math.max(0, n - skip);
  if (limit > 0) n = Math.min(n, limit);
  return { n, ok: 1 };
};
