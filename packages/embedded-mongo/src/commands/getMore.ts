import { Long } from 'bson';
import { MongoCommandError } from '../errors.js';
import { optionalNumber, type CommandHandler } from './context.js';

/** `getMore`: the next batch of an open cursor (cursor ids are int64). */
export const getMore: CommandHandler = (cmd, ctx) => {
  const id = cmd.getMore;
  if (!(id instanceof Long)) throw new MongoCommandError('TypeMismatch', "BSON field 'getMore' is the wrong type, expected type 'long'");
  if (typeof cmd.collection !== 'string') throw new MongoCommandError('TypeMismatch', "BSON field 'collection' is missing or not a string");
  const batchSize = optionalNumber(cmd, 'batchSize');
  return ctx.cursors.next(id, `${ctx.db}.${cmd.collection}`, batchSize === 0 ? undefined : batchSize) as unknown as Record<string, unknown>;
};
