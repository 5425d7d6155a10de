import { Long } from 'bson';
import { collectionName, requireArray, type CommandHandler } from './context.js';

/** `killCursors`: closes cursors early (the driver sends it when a cursor is closed before its end). */
export const killCursors: CommandHandler = (cmd, ctx) => {
  collectionName(cmd, 'killCursors');
  const killed: Long[] = [];
  const notFound: Long[] = [];
  for (const id of requireArray(cmd, 'cursors')) {
    if (id instanceof Long && ctx.cursors.kill(id)) killed.push(id);
    else notFound.push(id instanceof Long ? id : Long.fromNumber(Number(id)));
  }
  return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
};
