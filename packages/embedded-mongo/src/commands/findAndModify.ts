import { MongoCommandError } from '../errors.js';
import { collectionName, optionalDoc, project, refuseUnsupported, type CommandHandler } from './context.js';
import { applyUpdate } from './writes.js';

/**
 * `findAndModify`: one atomic find-then-update/remove of the first match (after `sort`).
 * Errors, duplicate keys included, are top-level (`{ok: 0, code: 11000, keyPattern, keyValue}`).
 */
export const findAndModify: CommandHandler = (cmd, ctx) => {
  const name = collectionName(cmd, Object.keys(cmd)[0]);
  const query = optionalDoc(cmd, 'query') ?? {};
  const sort = optionalDoc(cmd, 'sort');
  const fields = optionalDoc(cmd, 'fields');
  const remove = cmd.remove === true;
  const upsert = cmd.upsert === true;
  refuseUnsupported(cmd, ['arrayFilters', 'collation']);
  if (remove && cmd.update !== undefined) throw new MongoCommandError('FailedToParse', 'Cannot specify both an update and remove=true');
  if (!remove && cmd.update === undefined) throw new MongoCommandError('FailedToParse', 'Either an update or remove=true must be specified');
  if (remove && (upsert || cmd.new === true)) throw new MongoCommandError('FailedToParse', 'Cannot specify both upsert=true and remove=true');

  const coll = upsert ? ctx.catalog.getOrCreate(ctx.db, name) : ctx.catalog.get(ctx.db, name);
  const first = coll ? coll.find(query, { sort, limit: 1 })[0] : undefined;
  const shown = (d: Record<string, unknown> | null | undefined) => (d ? project([d], fields)[0] : null);

  if (remove) {
    if (coll && first) coll.remove(first);
    return { lastErrorObject: { n: first ? 1 : 0 }, value: shown(first), ok: 1 };
  }
  if (!coll) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
  const r = applyUpdate(coll, first ? [first] : [], query, cmd.update, upsert);
  const lastErrorObject: Record<string, unknown> = { n: first || r.upsertedId !== undefined ? 1 : 0, updatedExisting: !!first };
  if (r.upsertedId !== undefined) lastErrorObject.upserted = r.upsertedId;
  return { lastErrorObject, value: shown(cmd.new === true ? r.after : r.before), ok: 1 };
};
