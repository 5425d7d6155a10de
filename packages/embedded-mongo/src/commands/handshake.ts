import { MongoCommandError } from '../errors.js';
import { MAX_BSON_OBJECT_SIZE, MAX_MESSAGE_SIZE } from '../wire.js';
import type { CommandHandler } from './context.js';

/** The MongoDB version whose wire protocol (21 = 7.0) and command replies we follow. */
export const SERVER_VERSION = '7.0.0';
const MAX_WIRE_VERSION = 21;

/**
 * `hello` / `isMaster`: a standalone primary. Never `setName` (replica set), `msg: "isdbgrid"`
 * (mongos), `topologyVersion` (would switch the driver to streaming monitoring, which needs
 * exhaust cursors) or `compression`.
 */
export function helloReply(legacy: boolean, connectionId: number): Record<string, unknown> {
  return {
    helloOk: true,
    ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
}

export const hello: CommandHandler = (_cmd, ctx) => helloReply(false, ctx.connectionId);
export const isMaster: CommandHandler = (_cmd, ctx) => helloReply(true, ctx.connectionId);

export const buildInfo: CommandHandler = () => ({
  version: SERVER_VERSION,
  gitVersion: 'embedded',
  versionArray: [7, 0, 0, 0],
  bits: 64,
  maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
  storageEngines: ['embedded-journal'],
  ok: 1,
});

export const ping: CommandHandler = () => ({ ok: 1 });

/** Sessions carry no state here (no transactions), so ending them is a no-op. */
export const endSessions: CommandHandler = () => ({ ok: 1 });

/** Like a `mongod` without users: any authentication attempt fails. */
export const authenticate: CommandHandler = () => {
  throw new MongoCommandError('AuthenticationFailed', 'Authentication failed.');
};
