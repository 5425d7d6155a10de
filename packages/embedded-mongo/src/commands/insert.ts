import { toCommandError } from '../errors.js';
import { collectionName, requireArray, type CommandHandler } from './context.js';
import { prepareInsert } from './writes.js';

/** `insert`: documents arrive as a kind-1 sequence; ordered inserts stop at the first error. */
export const insert: CommandHandler = (cmd, ctx) => {
  const coll = ctx.catalog.getOrCreate(ctx.db, collectionName(cmd, 'insert'));
  const docs = requireArray(cmd, 'documents');
  const ordered = cmd.ordered !== false;
  const writeErrors: Record<string, unknown>[] = [];
  let n = 0;
  for (let i = 0; i < docs.length; i++) {
    try {
      coll.insert(prepareInsert(docs[i]));
      n++;
    } catch (err) {
      writeErrors.push(toCommandError(err).toWriteError(i));
      if (ordered) break;
    }
  }
  return writeErrors.length ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
};
