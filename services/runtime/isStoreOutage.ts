/**
 * Whether an error means the database could not be reached, dropped the connection or is between
 * primaries (as opposed to a bug or a refused command). Such a failure may pass if the same
 * operation is tried again: the services answer it as `unavailable` (503 with Retry-After at the
 * gateway), never `internal` (500), and the ceremony event writer retries it.
 */
import {
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';

const OUTAGE_CLASSES = [MongoNetworkError, MongoServerSelectionError, MongoTopologyClosedError, MongoNotConnectedError, MongoServerClosedError, MongoOperationTimeoutError, MongoWriteConcernError];

/** MongoDB's codes of conditions a retry can outlive (HostUnreachable … PrimarySteppedDown, ExceededTimeLimit). */
const TRANSIENT_CODES = new Set([6, 7, 50, 89, 91, 189, 262, 9001, 10107, 11600, 11602, 13435, 13436]);

export function isStoreOutage(err: unknown): boolean {
  if (OUTAGE_CLASSES.some((c) => err instanceof c)) return true;
  if (!(err instanceof MongoError)) return false;
  // The driver labels errors it would retry itself (a primary stepping down, a reset pool).
  if (err.hasErrorLabel('RetryableWriteError') || err.hasErrorLabel('ResetPool') || err.hasErrorLabel('TransientTransactionError')) return true;
  return typeof err.code === 'number' && TRANSIENT_CODES.has(err.code);
}
