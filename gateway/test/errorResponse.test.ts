/**
 * Connect codes → HTTP statuses, ErrorInfo details → the errorRsp body, and errors the services
 * did not mean for the caller rendered without their internals.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, createRouterTransport } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../gen/passkeyauth/common/v1/errors_pb.js';
import { ProjectService } from '../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { errorRsp, fromConnectError, genericRsp, HttpError, type ErrorBody } from '../src/errorResponse.js';

const detail = (info: Partial<{ type: string; details: string; validation: { field: string; message: string }[]; links: string[] }>) => ({
  desc: ErrorInfoSchema,
  value: create(ErrorInfoSchema, info),
});

/** The error as the gateway sees it: thrown by a handler and decoded from the wire by a Connect client. */
async function overTheWire(err: ConnectError | Error): Promise<unknown> {
  const transport = createRouterTransport(({ service }) => {
    service(ProjectService, {
      getJwks() {
        throw err;
      },
    });
  });
  try {
    await createClient(ProjectService, transport).getJwks({});
  } catch (received) {
    return received;
  }
  throw new Error('expected the call to fail');
}

describe('fromConnectError: status by code', () => {
  const cases: [Code, number][] = [
    [Code.InvalidArgument, 400],
    [Code.OutOfRange, 400],
    [Code.Unauthenticated, 401],
    [Code.PermissionDenied, 403],
    [Code.NotFound, 404],
    [Code.AlreadyExists, 409],
    [Code.FailedPrecondition, 409],
    [Code.Aborted, 409],
    [Code.ResourceExhausted, 429],
    [Code.Unimplemented, 501],
    [Code.Unavailable, 503],
    [Code.DeadlineExceeded, 504],
    [Code.Internal, 500],
    [Code.Unknown, 500],
    [Code.DataLoss, 500],
    [Code.Canceled, 500],
  ];
  for (const [code, status] of cases) {
    it(`${Code[code]} with an ErrorInfo detail → ${status}, the detail as the body`, async () => {
      const received = await overTheWire(new ConnectError('public message', code, undefined, [detail({ type: 'some_type', details: 'public details' })]));
      const httpError = fromConnectError(received);
      expect(httpError).toBeInstanceOf(HttpError);
      expect(httpError.status).toBe(status);
      expect(httpError.body).toEqual({ type: 'some_type', details: 'public details', validation: [], links: [] });
    });
  }
});

describe('fromConnectError: ErrorInfo', () => {
  it('carries validation and links through', async () => {
    const received = await overTheWire(
      new ConnectError('bad', Code.InvalidArgument, undefined, [
        detail({
          type: 'validation_error',
          details: 'userID: value does not match regex pattern',
          validation: [
            { field: 'userID', message: 'value does not match regex pattern `^usr-[0-9]{1,30}$`' },
            { field: 'clientInformation.userAgent', message: 'value length must be at least 1 characters' },
          ],
          links: ['https://docs.example.com/errors/validation_error'],
        }),
      ]),
    );
    const httpError = fromConnectError(received);
    expect(httpError.status).toBe(400);
    expect(httpError.body).toEqual({
      type: 'validation_error',
      details: 'userID: value does not match regex pattern',
      validation: [
        { field: 'userID', message: 'value does not match regex pattern `^usr-[0-9]{1,30}$`' },
        { field: 'clientInformation.userAgent', message: 'value length must be at least 1 characters' },
      ],
      links: ['https://docs.example.com/errors/validation_error'],
    });
    expect(httpError.message).toBe('userID: value does not match regex pattern');
  });

  it('also reads the detail of a ConnectError built in-process', () => {
    const httpError = fromConnectError(new ConnectError('x', Code.NotFound, undefined, [detail({ type: 'user_not_found', details: 'user usr-1 does not exist' })]));
    expect(httpError.status).toBe(404);
    expect(httpError.body.type).toBe('user_not_found');
  });

  it('failed_precondition on something that ran out ("…_expired") is 410 Gone', async () => {
    const expired = fromConnectError(await overTheWire(new ConnectError('x', Code.FailedPrecondition, undefined, [detail({ type: 'challenge_expired' })])));
    expect(expired.status).toBe(410);
    expect(expired.body.type).toBe('challenge_expired');
  });

  it('other failed_precondition types stay 409, including ones that merely contain "_expired"', async () => {
    for (const type of ['expired_challenge', 'challenge_expired_twice', 'challenge_used', 'expired']) {
      const e = fromConnectError(await overTheWire(new ConnectError('x', Code.FailedPrecondition, undefined, [detail({ type })])));
      expect(e.status, type).toBe(409);
    }
  });

  it('"…_expired" only means 410 for failed_precondition', async () => {
    const e = fromConnectError(await overTheWire(new ConnectError('x', Code.NotFound, undefined, [detail({ type: 'challenge_expired' })])));
    expect(e.status).toBe(404);
  });

  it('failed_precondition without a detail is 409', async () => {
    expect(fromConnectError(await overTheWire(new ConnectError('x', Code.FailedPrecondition))).status).toBe(409);
  });

  it('never shows the cause of an error that has a detail', async () => {
    const err = new ConnectError('public', Code.NotFound, undefined, [detail({ type: 'user_not_found', details: 'no such user' })], new Error('SECRET-CAUSE db=mongodb://admin:hunter2@db'));
    const body = errorRsp(404, fromConnectError(await overTheWire(err)).body, 'req-1', 0.01);
    expect(JSON.stringify(body)).not.toMatch(/SECRET|hunter2|mongodb/);
  });
});

describe('fromConnectError: errors without a detail reveal nothing internal', () => {
  const internals = /hunter2|mongodb|10\.0\.0\.7|stack|at Object|TypeError/;

  it('an internal error becomes a bare 500', async () => {
    const received = await overTheWire(new ConnectError('query failed on mongodb://admin:hunter2@10.0.0.7', Code.Internal, undefined, undefined, new Error('hunter2')));
    const httpError = fromConnectError(received);
    expect(httpError.status).toBe(500);
    expect(httpError.body).toEqual({ type: 'internal_error', details: 'internal error' });
    expect(JSON.stringify(errorRsp(500, httpError.body, 'req-1', 0))).not.toMatch(internals);
  });

  it('a plain exception thrown by a handler (Unknown) becomes a bare 500', async () => {
    const received = await overTheWire(new TypeError("Cannot read properties of undefined (reading 'hunter2') at 10.0.0.7"));
    const httpError = fromConnectError(received);
    expect(httpError.status).toBe(500);
    expect(httpError.body).toEqual({ type: 'internal_error', details: 'internal error' });
  });

  it('a non-Connect error in the gateway itself becomes a bare 500', () => {
    const httpError = fromConnectError(new Error('connect ECONNREFUSED 10.0.0.7:7102'));
    expect(httpError.status).toBe(500);
    expect(JSON.stringify(httpError.body)).not.toMatch(internals);
  });

  it('data loss and cancellation without a detail are bare 500s', async () => {
    for (const code of [Code.DataLoss, Code.Canceled]) {
      const httpError = fromConnectError(await overTheWire(new ConnectError('disk /var/lib/mongodb full hunter2', code)));
      expect(httpError.status).toBe(500);
      expect(httpError.body).toEqual({ type: 'internal_error', details: 'internal error' });
    }
  });

  it('an unreachable or slow backing service is a generic 503/504', async () => {
    const unavailable = fromConnectError(await overTheWire(new ConnectError('connect ECONNREFUSED 10.0.0.7:7102', Code.Unavailable)));
    expect(unavailable.status).toBe(503);
    expect(unavailable.body.type).toBe('service_unavailable');
    expect(unavailable.body.details).not.toMatch(internals);
    const timeout = fromConnectError(new ConnectError('the operation timed out after 10000ms talking to 10.0.0.7', Code.DeadlineExceeded));
    expect(timeout.status).toBe(504);
    expect(timeout.body.type).toBe('service_unavailable');
    expect(timeout.body.details).not.toMatch(internals);
  });

  it('faults say to retry: a reset connection (Aborted without detail) is 503, a time-out 504 saying it was too slow, both with Retry-After', async () => {
    const reset = fromConnectError(new ConnectError('socket hang up', Code.Aborted));
    expect({ status: reset.status, type: reset.body.type, retryAfter: reset.headers['retry-after'] }).toEqual({ status: 503, type: 'service_unavailable', retryAfter: '1' });
    expect(reset.body.details).toMatch(/outcome is unknown/);
    const unavailable = fromConnectError(new ConnectError('connect ECONNREFUSED 127.0.0.1:7102', Code.Unavailable));
    expect(unavailable.headers['retry-after']).toBe('1');
    const timeout = fromConnectError(new ConnectError('the operation timed out', Code.DeadlineExceeded));
    expect({ status: timeout.status, retryAfter: timeout.headers['retry-after'] }).toEqual({ status: 504, retryAfter: '1' });
    expect(timeout.body.details).toMatch(/did not answer in time/);
    // Whatever code the transport picked, a socket error as the cause is a dropped connection.
    for (const cause of [Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), Object.assign(new Error('premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' })]) {
      const dropped = fromConnectError(new ConnectError('write failed', Code.Unknown, undefined, undefined, cause));
      expect({ status: dropped.status, type: dropped.body.type }).toEqual({ status: 503, type: 'service_unavailable' });
    }
    // A service's own internal error (no cause on this side) stays a 500.
    expect(fromConnectError(await overTheWire(new ConnectError('boom', Code.Internal))).status).toBe(500);
    // A service's own outage report (with a detail) gets Retry-After too.
    const reported = fromConnectError(await overTheWire(new ConnectError('store down', Code.Unavailable, undefined, [detail({ type: 'store_unavailable', details: 'the database is not reachable' })])));
    expect({ status: reported.status, type: reported.body.type, retryAfter: reported.headers['retry-after'] }).toEqual({ status: 503, type: 'store_unavailable', retryAfter: '1' });
  });

  it('a 4xx without detail keeps no cause and no ErrorInfo-only fields', async () => {
    const httpError = fromConnectError(await overTheWire(new ConnectError('permission denied', Code.PermissionDenied, undefined, undefined, new Error('hunter2'))));
    expect(httpError.status).toBe(403);
    expect(httpError.body.type).toBe('error');
    expect(httpError.body.validation).toBeUndefined();
    expect(JSON.stringify(httpError.body)).not.toMatch(internals);
  });
});

describe('errorRsp', () => {
  it('renders the reference errorRsp shape', () => {
    const body: ErrorBody = {
      type: 'validation_error',
      details: 'the request has fields of the wrong type',
      validation: [{ field: 'userID', message: 'must be a string' }],
      links: ['https://docs.example.com/x'],
    };
    expect(errorRsp(400, body, 'req-abc', 0.0125)).toEqual({
      httpStatusCode: 400,
      message: 'Bad Request',
      requestData: { requestID: 'req-abc', link: '' },
      runtime: 0.0125,
      error: {
        type: 'validation_error',
        details: 'the request has fields of the wrong type',
        validation: [{ field: 'userID', message: 'must be a string' }],
        links: ['https://docs.example.com/x'],
      },
    });
  });

  it('always has validation and links arrays, and leaves out empty details', () => {
    expect(errorRsp(404, { type: 'route_not_found' }, 'r', 0).error).toEqual({ type: 'route_not_found', validation: [], links: [] });
    expect(errorRsp(404, { type: 'x', details: '' }, 'r', 0).error).toEqual({ type: 'x', validation: [], links: [] });
  });

  it('uses the standard reason phrase of each status', () => {
    const phrases: Record<number, string> = {
      400: 'Bad Request',
      401: 'Unauthorized',
      403: 'Forbidden',
      404: 'Not Found',
      405: 'Method Not Allowed',
      409: 'Conflict',
      410: 'Gone',
      413: 'Payload Too Large',
      415: 'Unsupported Media Type',
      429: 'Too Many Requests',
      500: 'Internal Server Error',
      501: 'Not Implemented',
      503: 'Service Unavailable',
      504: 'Gateway Timeout',
      418: 'Error',
    };
    for (const [status, phrase] of Object.entries(phrases)) {
      const rsp = errorRsp(Number(status), { type: 't' }, 'r', 0);
      expect(rsp.message, status).toBe(phrase);
      expect(rsp.httpStatusCode).toBe(Number(status));
    }
  });

  it('genericRsp has the reference success shape', () => {
    expect(genericRsp('req-1', 0.5)).toEqual({ httpStatusCode: 200, message: 'OK', requestData: { requestID: 'req-1', link: '' }, runtime: 0.5 });
  });
});

describe('HttpError', () => {
  it('keeps status, body and extra headers; its message is the details or the type', () => {
    const withHeaders = new HttpError(405, { type: 'method_not_allowed', details: 'no' }, { allow: 'POST' });
    expect(withHeaders.status).toBe(405);
    expect(withHeaders.headers).toEqual({ allow: 'POST' });
    expect(withHeaders.message).toBe('no');
    const bare = new HttpError(404, { type: 'route_not_found' });
    expect(bare.headers).toEqual({});
    expect(bare.message).toBe('route_not_found');
    expect(bare).toBeInstanceOf(Error);
  });
});
