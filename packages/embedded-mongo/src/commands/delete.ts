import { isPlainObject } from '../documents.js';
import { MongoCommandError, toCommandError } from '../errors.js';
import { collectionName, requireArray, type CommandHandler } from './context.js';

/** `delete`: each statement `{q, limit}` where limit 1 removes the first match and 0 removes all. */
export const del: CommandHandler = (cmd, ctx) => {
  const coll = ctx.catalog.get(ctx.db, collectionName(cmd, 'delete'));
  const statements = requireArray(cmd, 'deletes');
  const ordered = cmd.ordered !== false;
  const writeErrors: Record<string, unknown>[] = [];
  let n = 0;
  for (let i = 0; i < statements.length; i++) {
    try {
      const s = statements[i];
      if (!isPlainObject(s) || !isPlainObject(s.q)) throw new MongoCommandError('FailedToParse', "delete statement must have a 'q' document");
      if (s.limit !== 0 && s.limit !== 1) throw new MongoCommandError('FailedToParse', "The limit field in delete objects must be 0 or 1.");
      if (s.collation !== undefined) throw new MongoCommandError('NotImplemented', 'collation is not supported by the embedded store');
      if (!coll) continue;
      for (const doc of coll.find(s.q, { limit: s.limit })) {
        coll.remove(doc);
        n++;
      }
    } catch (err) {
      writeErrors.push(toCommandError(err).toWriteError(i));
      if (ordered) break;
    }
  }
  return writeErrors.length ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
};
