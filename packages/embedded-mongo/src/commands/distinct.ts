import { canonicalKey, compareValues } from '../bsonOrder.js';
import { valuesAtPath } from '../documents.js';
import { MongoCommandError } from '../errors.js';
import { collectionName, optionalDoc, type CommandHandler } from './context.js';

/** `distinct`: the distinct values of a field over matching documents, arrays unwound. */
export const distinct: CommandHandler = (cmd, ctx) => {
  const coll = ctx.catalog.get(ctx.db, collectionName(cmd, 'distinct'));
  if (typeof cmd.key !== 'string') throw new MongoCommandError('TypeMismatch', "BSON field 'key' is missing or not a string");
  const key = cmd.key;
  const seen = new Map<string, unknown>();
  for (const doc of coll ? coll.find(optionalDoc(cmd, 'query') ?? {}) : []) {
    for (const v of valuesAtPath(doc, key)) if (v !== undefined) seen.set(canonicalKey(v), v);
  }
  return { values: [...seen.values()].sort(compareValues), ok: 1 };
};
