import { isPlainObject } from '../documents.js';
import { MongoCommandError, toCommandError } from '../errors.js';
import { collectionName, requireArray, type CommandHandler } from './context.js';
import { applyUpdate } from './writes.js';

/** `update`: each statement `{q, u, upsert, multi}`; per-statement errors go to `writeErrors`. */
export const update: CommandHandler = (cmd, ctx) => {
  const name = collectionName(cmd, 'update');
  const statements = requireArray(cmd, 'updates');
  const ordered = cmd.ordered !== false;
  const writeErrors: Record<string, unknown>[] = [];
  const upserted: { index: number; _id: unknown }[] = [];
  let n = 0;
  let nModified = 0;
  for (let i = 0; i < statements.length; i++) {
    try {
      const s = statements[i];
      if (!isPlainObject(s) || !isPlainObject(s.q ?? {})) throw new MongoCommandError('FailedToParse', 'update statement must have a q document');
      if (s.arrayFilters !== undefined || s.collation !== undefined) {
        throw new MongoCommandError('NotImplemented', 'arrayFilters and collation are not supported by the embedded store');
      }
      const q = (s.q ?? {}) as Record<string, unknown>;
      if (s.multi === true && isPlainObject(s.u) && !Object.keys(s.u).some((k) => k.startsWith('$'))) {
        throw new MongoCommandError('FailedToParse', 'multi update is not supported for replacement-style update');
      }
      const coll = ctx.catalog.get(ctx.db, name) ?? (s.upsert === true ? ctx.catalog.getOrCreate(ctx.db, name) : undefined);
      if (!coll) continue;
      const matches = coll.find(q, { limit: s.multi === true ? 0 : 1 });
      const r = applyUpdate(coll, matches, q, s.u, s.upsert === true);
      n += r.matched;
      nModified += r.modified;
      if (r.upsertedId !== undefined) {
        n += 1;
        upserted.push({ index: i, _id: r.upsertedId });
      }
    } catch (err) {
      writeErrors.push(toCommandError(err).toWriteError(i));
      if (ordered) break;
    }
  }
  const reply: Record<string, unknown> = { n, nModified };
  if (upserted.length) reply.upserted = upserted;
  if (writeErrors.length) reply.writeErrors = writeErrors;
  reply.ok = 1;
  return reply;
};
