/**
 * The service side of "faults are retryable": a database that cannot be reached becomes
 * `unavailable` with an ErrorInfo (store_unavailable, retry after 1 s); a bug stays `internal`.
 */
import { Code, ConnectError, createClient, createRouterTransport } from '@connectrpc/connect';
import { MongoNetworkError, MongoServerError, MongoServerSelectionError, MongoError } from 'mongodb';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { isStoreOutage } from '../isStoreOutage.js';
import { createMetrics } from '../metrics.js';
import { serviceInterceptors } from '../server.js';

function clientThrowing(err: unknown) {
  const transport = createRouterTransport(
    (router) =>
      router.service(UserService, {
        getUser() {
          throw err;
        },
      }),
    { router: { interceptors: serviceInterceptors({ logger: pino({ level: 'silent' }), metrics: createMetrics('test') }) } },
  );
  return createClient(UserService, transport);
}

async function failureOf(err: unknown): Promise<ConnectError> {
  try {
    await clientThrowing(err).getUser({ userId: 'usr-1' });
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error('expected the call to fail');
}

describe('store outages are retryable', () => {
  it('classifies network, selection and labelled errors as outages, server refusals not', () => {
    expect(isStoreOutage(new MongoNetworkError('connection reset'))).toBe(true);
    expect(isStoreOutage(new MongoServerSelectionError('no server', { type: 'Unknown', servers: new Map() } as never))).toBe(true);
    const labelled = new MongoError('primary stepped down');
    labelled.addErrorLabel('RetryableWriteError');
    expect(isStoreOutage(labelled)).toBe(true);
    expect(isStoreOutage(new MongoServerError({ message: 'E11000 duplicate key', code: 11000 }))).toBe(false);
    expect(isStoreOutage(new Error('bug'))).toBe(false);
  });

  it('answers unavailable store_unavailable with a retry time, keeping the cause out of the message', async () => {
    const f = await failureOf(new MongoNetworkError('connection 3 to 10.0.0.9:27017 closed'));
    expect(f.code).toBe(Code.Unavailable);
    const info = f.findDetails(ErrorInfoSchema)[0];
    expect({ type: info.type, retryAfterSeconds: info.retryAfterSeconds }).toEqual({ type: 'store_unavailable', retryAfterSeconds: 1 });
    expect(f.rawMessage).not.toMatch(/10\.0\.0\.9/);
  });

  it('a bug is still internal, without detail', async () => {
    const f = await failureOf(new TypeError('x is undefined'));
    expect(f.code).toBe(Code.Internal);
    expect(f.findDetails(ErrorInfoSchema)).toEqual([]);
  });
});
