/**
 * Whether an error means the database could not be reached or dropped the connection (as
 * opposed to a bug or a refused command). Such a failure is retryable: the service answers
 * `unavailable` (503 with Retry-After at the gateway), never `internal` (500).
 */
import { MongoError, MongoNetworkError, MongoNotConnectedError, MongoOperationTimeoutError, MongoServerClosedError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';

const OUTAGE_CLASSES = [MongoNetworkError, MongoServerSelectionError, MongoTopologyClosedError, MongoNotConnectedError, MongoServerClosedError, MongoOperationTimeoutError];

export function isStoreOutage(err: unknown): boolean {
  if (OUTAGE_CLASSES.some((c) => err instanceof c)) return true;
  // The driver labels errors it would retry itself (a primary stepping down, a reset pool).
  return err instanceof MongoError && (err.hasErrorLabel('RetryableWriteError') || err.hasErrorLabel('ResetPool') || err.hasErrorLabel('TransientTransactionError'));
}
