/**
 * Whether a store failure may pass if the same write is tried again: the network, server
 * selection, a primary stepping down or shutting down. Anything else (a malformed document, a
 * closed client) fails the same way every time.
 */
import { MongoError, MongoNetworkError, MongoServerSelectionError, MongoWriteConcernError } from 'mongodb';

/** MongoDB's codes of conditions a retry can outlive (HostUnreachable … PrimarySteppedDown, ExceededTimeLimit). */
const TRANSIENT_CODES = new Set([6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

export function isTransientStoreError(err: unknown): boolean {
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return true;
  if (!(err instanceof MongoError)) return false;
  if (err.hasErrorLabel('RetryableWriteError') || err.hasErrorLabel('ResetPool')) return true;
  if (err instanceof MongoWriteConcernError) return true;
  return typeof err.code === 'number' && TRANSIENT_CODES.has(err.code);
}
