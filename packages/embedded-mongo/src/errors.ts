/**
 * MongoDB server errors as the official driver sees them: `{ ok: 0, errmsg, code, codeName }`.
 *
 * Only codes a standalone `mongod` would send for the same situation are used. Deliberately
 * absent: every code the driver treats as a failover or "node is recovering" signal
 * (NotWritablePrimary 10107, InterruptedAtShutdown 11600, ShutdownInProgress 91, …), because a
 * driver that sees those marks the server unknown and retries, which would hide real bugs.
 */
export const ErrorCodes = {
  InternalError: 1,
  BadValue: 2,
  FailedToParse: 9,
  TypeMismatch: 14,
  PathNotViable: 28,
  DollarPrefixedFieldName: 52,
  EmptyFieldName: 56,
  AuthenticationFailed: 18,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  CursorNotFound: 43,
  NamespaceExists: 48,
  CommandNotFound: 59,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  InvalidOptions: 72,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  NotImplemented: 238,
  ConflictingUpdateOperators: 40,
  InvalidNamespace: 73,
  BSONObjectTooLarge: 10334,
  DuplicateKey: 11000,
  ChangeStreamNotSupported: 40573,
} as const;

export type ErrorCodeName = keyof typeof ErrorCodes;

const NAMES_BY_CODE = new Map<number, string>(
  Object.entries(ErrorCodes).map(([name, code]) => [code, name]),
);

export class MongoCommandError extends Error {
  readonly code: number;
  readonly codeName: string;
  /** Extra top-level reply fields (e.g. `keyPattern`/`keyValue` of a duplicate key). */
  readonly extra: Record<string, unknown>;

  constructor(codeName: ErrorCodeName, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.code = ErrorCodes[codeName];
    this.codeName = codeName;
    this.extra = extra;
  }

  /** The reply document for a failed command. */
  toReply(): Record<string, unknown> {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }

  /** The `writeErrors[]` entry shape used by insert/update/delete. */
  toWriteError(index: number): Record<string, unknown> {
    return { index, code: this.code, errmsg: this.message, ...this.extra };
  }
}

export function codeNameOf(code: number): string {
  return NAMES_BY_CODE.get(code) ?? 'UnknownError';
}

/** Wraps anything thrown while running a command into a server error; query-engine errors are bad input. */
export function toCommandError(err: unknown): MongoCommandError {
  if (err instanceof MongoCommandError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new MongoCommandError('BadValue', message);
}
