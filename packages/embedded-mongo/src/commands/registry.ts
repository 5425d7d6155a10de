/** Command name → handler, and the checks every command passes first. */
import type { Doc } from '../documents.js';
import { MongoCommandError } from '../errors.js';
import { aggregate } from './aggregate.js';
import { create, drop, dropDatabase, listCollections } from './collections.js';
import type { CommandContext, CommandHandler } from './context.js';
import { count } from './count.js';
import { del } from './delete.js';
import { distinct } from './distinct.js';
import { explain } from './explain.js';
import { find } from './find.js';
import { findAndModify } from './findAndModify.js';
import { getMore } from './getMore.js';
import { authenticate, buildInfo, endSessions, hello, isMaster, ping } from './handshake.js';
import { createIndexes, dropIndexes, listIndexes } from './indexes.js';
import { insert } from './insert.js';
import { killCursors } from './killCursors.js';
import { update } from './update.js';

const HANDLERS: Record<string, CommandHandler> = {
  hello,
  ismaster: isMaster,
  isMaster,
  buildInfo,
  buildinfo: buildInfo,
  ping,
  endSessions,
  saslStart: authenticate,
  authenticate,
  insert,
  find,
  getMore,
  killCursors,
  update,
  delete: del,
  findAndModify,
  findandmodify: findAndModify,
  aggregate,
  count,
  distinct,
  explain,
  createIndexes,
  listIndexes,
  dropIndexes,
  listCollections,
  create,
  drop,
  dropDatabase,
};

/** Runs one command and returns its reply; failures become `{ok: 0, code, codeName, errmsg}`. */
export function runCommand(cmd: Doc, ctx: CommandContext): Doc {
  // Exactly what a standalone mongod answers: transactions need a replica set.
  if (cmd.txnNumber !== undefined || cmd.startTransaction !== undefined || cmd.autocommit !== undefined) {
    throw new MongoCommandError('IllegalOperation', 'Transaction numbers are only allowed on a replica set member or mongos');
  }
  const name = Object.keys(cmd)[0];
  const handler = name === undefined ? undefined : Object.prototype.hasOwnProperty.call(HANDLERS, name) ? HANDLERS[name] : undefined;
  if (!handler) {
    throw new MongoCommandError('CommandNotFound', `no such command: '${name ?? ''}'`);
  }
  return handler(cmd, ctx);
}
